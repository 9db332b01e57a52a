package io.icebergscan.planning.iceberg;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.Abortable;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Every S3 object body the AWS SDK hands to a reader in this JVM until it is closed, so that a test can ask which
 * were left open. Registered as a global interceptor of the SDK (its {@code execution.interceptors} resource in this
 * module's test resources), so it sees the S3 clients Iceberg's {@code S3FileIO} builds without any change to them.
 * A body left open holds its HTTP connection leased from the client's pool unless it was read to its very end.
 */
public final class S3ResponseBodies implements ExecutionInterceptor {

  /** The bodies handed out and not closed yet, JVM-wide as the SDK's clients are. */
  private static final Set<Body> OPEN = ConcurrentHashMap.newKeySet();

  /** As the SDK loads global interceptors: public and without arguments. */
  public S3ResponseBodies() {
  }

  /** The locations ({@code s3://bucket/key}) under a prefix whose object bodies are open now, one entry a body. */
  static List<String> openUnder(String prefix) {
    return OPEN.stream().map(Body::location).filter(location -> location.startsWith(prefix)).sorted().toList();
  }

  @Override
  public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context,
      ExecutionAttributes attributes) {
    Optional<InputStream> content = context.responseBody();
    if (!(context.request() instanceof GetObjectRequest get) || content.isEmpty()) {
      return content;
    }
    Body body = new Body("s3://" + get.bucket() + "/" + get.key(), content.get());
    OPEN.add(body);
    return Optional.of(body);
  }

  /** A body as the reader gets it; still abortable, so that closing a half-read stream aborts its request as before. */
  private static final class Body extends FilterInputStream implements Abortable {

    private final String location;

    Body(String location, InputStream content) {
      super(content);
      this.location = location;
    }

    String location() {
      return this.location;
    }

    @Override
    public void abort() {
      if (this.in instanceof Abortable abortable) {
        abortable.abort();
      }
    }

    @Override
    public void close() throws IOException {
      OPEN.remove(this);
      super.close();
    }
  }
}
