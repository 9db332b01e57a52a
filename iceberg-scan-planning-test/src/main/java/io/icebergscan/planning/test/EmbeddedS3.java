package io.icebergscan.planning.test;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.apache.iceberg.io.StorageCredential;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.TransientApiMetadata;
import org.jspecify.annotations.Nullable;

/**
 * An S3 API server in the test's JVM, on a free loopback port: <a href="https://github.com/gaul/s3proxy">S3Proxy</a>
 * over an in-memory blob store (jclouds' {@code transient}), with one bucket, that checks every request's AWS
 * signature (V2 or V4): an unsigned request, an unknown access key or a wrong secret is answered 403, as S3 answers
 * them. A catalog keeps its warehouse in it with {@link EmbeddedIcebergCatalog#create(EmbeddedS3)}, through Apache
 * Iceberg's {@code S3FileIO}.
 *
 * <pre>{@code
 * try (EmbeddedS3 s3 = EmbeddedS3.create().start();
 *     EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(s3).start()) {
 *   catalog.vendedCredentials(request -> List.of(s3.vend(Duration.ofHours(1))));
 *   EmbeddedTable table = catalog.createTable(TableIdentifier.of("db", "events"), schema);
 *   table.appendRows(FileFormat.PARQUET, rows);              // metadata, manifests and data files in the bucket
 * }
 * }</pre>
 *
 * <p><b>Credentials.</b> The store accepts its {@link #rootCredentials() root credentials}, which the catalog writes
 * with and never vends, and the temporary credentials it {@linkplain #issueCredentials issues}, each until its
 * expiry as read on the store's {@link #clock(Clock) clock} (a test's settable clock makes a credential expire on
 * demand) or until it is {@linkplain #revoke revoked}. Past that, a request signed with it is refused (403
 * {@code InvalidAccessKeyId}), as S3 refuses an expired session: that is how a test makes the credentials a reader
 * holds stop working in the middle of a read. A temporary credential carries a session token, which S3Proxy does not
 * check, so that clients send it as they send real ones.
 *
 * <p><b>Client settings.</b> {@link #clientProperties()} are the FileIO properties a client needs besides a
 * credential ({@code io-impl} = {@code org.apache.iceberg.aws.s3.S3FileIO}, {@code s3.endpoint},
 * {@code s3.path-style-access} and {@code client.region}); the catalog advertises them as {@code /v1/config}
 * defaults. {@link #vend} and {@link #storageCredential} give a credential as Iceberg's REST catalogs vend one
 * ({@code s3.access-key-id}, {@code s3.secret-access-key}, {@code s3.session-token},
 * {@code s3.session-token-expires-at-ms}) for {@link EmbeddedIcebergCatalog#vendedCredentials}.
 *
 * <p>It needs {@code org.gaul:s3proxy}, {@code org.apache.iceberg:iceberg-aws} and the AWS SDK's {@code s3},
 * {@code apache5-client} (S3FileIO's default HTTP client), {@code kms} and {@code sts} (which Iceberg's
 * {@code AwsProperties} links) on the classpath: optional dependencies of this module, so tests that do not use it
 * do not get the AWS SDK. A client with no credential for a location falls back to the AWS SDK's
 * default credentials chain, whose last resort asks the EC2 instance metadata service over the network: run such
 * tests with the system property {@code aws.disableEc2Metadata=true}.
 */
public final class EmbeddedS3 implements AutoCloseable {

  /** The region clients are told to sign for: any will do, S3Proxy does not check it, but the SDK needs one. */
  public static final String REGION = "us-east-1";
  /** The store's one bucket. */
  public static final String BUCKET = "warehouse";

  static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
  static final String ACCESS_KEY_ID = "s3.access-key-id";
  static final String SECRET_ACCESS_KEY = "s3.secret-access-key";
  static final String SESSION_TOKEN = "s3.session-token";
  static final String SESSION_TOKEN_EXPIRES_AT_MS = "s3.session-token-expires-at-ms";

  /** What using it needs, checked before any of it is touched so that a missing jar is named, not a missing class. */
  private static final List<String> REQUIRED_CLASSES = List.of("org.gaul.s3proxy.S3Proxy", S3_FILE_IO,
      "software.amazon.awssdk.services.s3.S3Client", "software.amazon.awssdk.http.apache5.Apache5HttpClient",
      // S3FileIO's clients are built through Iceberg's AwsProperties, which links KMS and STS model classes
      "software.amazon.awssdk.services.kms.KmsClient", "software.amazon.awssdk.services.sts.StsClient");

  private final S3Credentials root = S3Credentials.generate(null, null);
  /** The temporary credentials issued and not revoked, by access key id. */
  private final ConcurrentMap<String, S3Credentials> issued = new ConcurrentHashMap<>();
  /** The signed requests received, by the access key id they named, accepted or not. */
  private final ConcurrentMap<String, Long> requests = new ConcurrentHashMap<>();
  private volatile Clock clock = Clock.systemUTC();
  private @Nullable S3Proxy proxy;
  private @Nullable BlobStoreContext blobStore;
  private @Nullable String endpoint;
  private boolean closed;

  private EmbeddedS3() {
  }

  /**
   * A store that is not started yet.
   *
   * @throws IllegalStateException when an optional dependency it needs is not on the classpath, naming it
   */
  public static EmbeddedS3 create() {
    List<String> missing = OptionalDependencies.missing(REQUIRED_CLASSES);
    if (!missing.isEmpty()) {
      throw new IllegalStateException("EmbeddedS3 needs org.gaul:s3proxy, org.apache.iceberg:iceberg-aws and "
          + "software.amazon.awssdk:s3, apache5-client, kms and sts on the classpath (optional dependencies of "
          + "iceberg-scan-planning-test: declare them in your build); missing: " + String.join(", ", missing));
    }
    return new EmbeddedS3();
  }

  /**
   * The clock temporary credentials expire by (default the system's); can be changed at any time, and a settable
   * test clock makes credentials expire when the test says. Signatures are still checked against real time.
   */
  public EmbeddedS3 clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * Starts S3Proxy on a free port of 127.0.0.1 and creates the bucket.
   *
   * @throws IllegalStateException when already started or closed, or when the server cannot start
   */
  public synchronized EmbeddedS3 start() {
    if (this.closed || this.proxy != null) {
      throw new IllegalStateException(this.closed ? "the store is closed" : "the store is already started");
    }
    BlobStoreContext context = ContextBuilder.newBuilder(new TransientApiMetadata())
        .credentials("embedded-s3", "unused").build(BlobStoreContext.class);
    BlobStore store = context.getBlobStore();
    store.createContainerInLocation(null, BUCKET);
    S3Proxy server = S3Proxy.builder().blobStore(store).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, this.root.accessKeyId(), this.root.secretAccessKey())
        // the SDK sends a checksum header with every upload (x-amz-checksum-crc32), which S3Proxy 2.6 does not
        // know and would answer 501; the signature still covers the payload
        .ignoreUnknownHeaders(true)
        .build();
    // Which credentials are accepted is decided for each request, so that issuing, expiring and revoking them
    // applies to the next request: S3Proxy's own check knows one fixed key pair.
    server.setBlobStoreLocator((identity, container, blob) -> {
      if (identity != null) {
        this.requests.merge(identity, 1L, Long::sum);
      }
      String secret = acceptedSecret(identity);
      return secret == null ? null : Map.entry(secret, store);
    });
    try {
      server.start();
    }
    catch (Exception failure) {
      stopQuietly(server, failure);
      context.close();
      throw new IllegalStateException("the embedded S3 store could not start", failure);
    }
    this.proxy = server;
    this.blobStore = context;
    this.endpoint = "http://127.0.0.1:" + server.getPort();
    return this;
  }

  /**
   * The endpoint clients send requests to ({@code s3.endpoint}), e.g. {@code http://127.0.0.1:40123}.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public synchronized String endpoint() {
    if (this.endpoint == null) {
      throw new IllegalStateException("the store is not started");
    }
    return this.endpoint;
  }

  /** The bucket's name, {@value #BUCKET}. */
  public String bucket() {
    return BUCKET;
  }

  /** The bucket's root as a location, {@code s3://warehouse}, without a trailing slash. */
  public String location() {
    return "s3://" + BUCKET;
  }

  /**
   * The FileIO properties a client of this store needs besides a credential: {@code io-impl} (Iceberg's
   * {@code S3FileIO}), {@code s3.endpoint}, {@code s3.path-style-access} ({@code true}: buckets are not resolved as
   * host names) and {@code client.region}. No secret.
   */
  public Map<String, String> clientProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("io-impl", S3_FILE_IO);
    properties.put("s3.endpoint", endpoint());
    properties.put("s3.path-style-access", "true");
    properties.put("client.region", REGION);
    // S3Proxy 2.6 takes the signed payload of a plain upload, not the SDK's default aws-chunked body with a trailing
    // checksum (STREAMING-UNSIGNED-PAYLOAD-TRAILER), which it answers 400
    properties.put("s3.chunked-encoding-enabled", "false");
    return Map.copyOf(properties);
  }

  /** {@link #clientProperties()} with the given credentials, for an {@code S3FileIO} of the test's own. */
  public Map<String, String> fileIoProperties(S3Credentials credentials) {
    Map<String, String> properties = new LinkedHashMap<>(clientProperties());
    properties.putAll(credentials.settings());
    return Map.copyOf(properties);
  }

  /** The credentials the store accepts for as long as it runs: the catalog's own, never to be vended. */
  public S3Credentials rootCredentials() {
    return this.root;
  }

  /**
   * New temporary credentials, accepted from now until {@code validity} has passed on the store's clock (or until
   * {@linkplain #revoke revoked}), with a session token.
   *
   * @param validity how long they hold; zero or negative for credentials that have expired already
   */
  public S3Credentials issueCredentials(Duration validity) {
    Objects.requireNonNull(validity, "validity");
    S3Credentials credentials = S3Credentials.generate(UUID.randomUUID().toString(),
        this.clock.instant().plus(validity));
    this.issued.put(credentials.accessKeyId(), credentials);
    return credentials;
  }

  /** Stops accepting temporary credentials before they expire; the root credentials cannot be revoked. */
  public void revoke(S3Credentials credentials) {
    if (credentials.accessKeyId().equals(this.root.accessKeyId())) {
      throw new IllegalArgumentException("the root credentials cannot be revoked: the catalog writes with them");
    }
    this.issued.remove(credentials.accessKeyId());
  }

  /**
   * The credentials as a catalog vends them for the whole bucket: Iceberg's {@link StorageCredential} with prefix
   * {@code s3://{bucket}/} and {@code s3.access-key-id}, {@code s3.secret-access-key}, and for temporary credentials
   * {@code s3.session-token} and {@code s3.session-token-expires-at-ms}.
   */
  public StorageCredential storageCredential(S3Credentials credentials) {
    return StorageCredential.create(location() + "/", credentials.settings());
  }

  /** {@link #issueCredentials} and then {@link #storageCredential} of them: one call per vended answer. */
  public StorageCredential vend(Duration validity) {
    return storageCredential(issueCredentials(validity));
  }

  /**
   * How many signed requests named these credentials' access key so far, whether the store accepted them or not: a
   * test tells by it which credentials a reader used.
   */
  public long requests(S3Credentials credentials) {
    return this.requests.getOrDefault(credentials.accessKeyId(), 0L);
  }

  /** Whether the server is started and not closed. */
  public synchronized boolean isRunning() {
    return this.proxy != null && !this.closed;
  }

  /** Stops the server and drops every object; idempotent. */
  @Override
  public synchronized void close() {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.issued.clear();
    RuntimeException failure = null;
    if (this.proxy != null) {
      try {
        this.proxy.stop();
      }
      catch (Exception stopFailure) {
        failure = new IllegalStateException("the embedded S3 store did not stop cleanly", stopFailure);
      }
    }
    if (this.blobStore != null) {
      this.blobStore.close();
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "EmbeddedS3[" + (this.endpoint != null ? this.endpoint + "/" + BUCKET : "not started")
        + (this.closed ? ", closed" : "") + "]";
  }

  /** The secret of credentials the store accepts now under this access key id; {@code null} for none. */
  private @Nullable String acceptedSecret(@Nullable String accessKeyId) {
    if (accessKeyId == null) {
      return null;
    }
    if (accessKeyId.equals(this.root.accessKeyId())) {
      return this.root.secretAccessKey();
    }
    S3Credentials credentials = this.issued.get(accessKeyId);
    if (credentials == null || credentials.expiresAt() == null
        || !this.clock.instant().isBefore(credentials.expiresAt())) {
      return null;
    }
    return credentials.secretAccessKey();
  }

  private static void stopQuietly(S3Proxy server, Exception failure) {
    try {
      server.stop();
    }
    catch (Exception stopFailure) {
      failure.addSuppressed(stopFailure);
    }
  }

  /**
   * An S3 key pair, with a session token and an expiry when temporary. {@link #toString()} leaves the secret and the
   * token out.
   *
   * @param accessKeyId the access key id ({@code s3.access-key-id})
   * @param secretAccessKey the secret ({@code s3.secret-access-key})
   * @param sessionToken the session token of temporary credentials ({@code s3.session-token}), else {@code null}
   * @param expiresAt when temporary credentials stop being accepted ({@code s3.session-token-expires-at-ms}), else
   *     {@code null}
   */
  public record S3Credentials(String accessKeyId, String secretAccessKey, @Nullable String sessionToken,
      @Nullable Instant expiresAt) {

    public S3Credentials {
      Objects.requireNonNull(accessKeyId, "accessKeyId");
      Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    }

    /** The same access key with another secret: credentials S3 refuses, for a test of a catalog that vends them. */
    public S3Credentials withSecretAccessKey(String secretAccessKey) {
      return new S3Credentials(this.accessKeyId, secretAccessKey, this.sessionToken, this.expiresAt);
    }

    /** The credentials as S3FileIO properties. */
    public Map<String, String> settings() {
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put(ACCESS_KEY_ID, this.accessKeyId);
      settings.put(SECRET_ACCESS_KEY, this.secretAccessKey);
      if (this.sessionToken != null) {
        settings.put(SESSION_TOKEN, this.sessionToken);
      }
      if (this.expiresAt != null) {
        settings.put(SESSION_TOKEN_EXPIRES_AT_MS, Long.toString(this.expiresAt.toEpochMilli()));
      }
      return Map.copyOf(settings);
    }

    @Override
    public String toString() {
      return "S3Credentials[" + this.accessKeyId + (this.expiresAt != null ? ", expires " + this.expiresAt : "")
          + "]";
    }

    /** Random credentials: temporary ones (with a token) when {@code sessionToken} is given. */
    static S3Credentials generate(@Nullable String sessionToken, @Nullable Instant expiresAt) {
      String random = UUID.randomUUID().toString().replace("-", "").toUpperCase(java.util.Locale.ROOT);
      return new S3Credentials((sessionToken == null ? "AKIA" : "ASIA") + random.substring(0, 16),
          UUID.randomUUID().toString() + UUID.randomUUID(), sessionToken, expiresAt);
    }
  }
}
