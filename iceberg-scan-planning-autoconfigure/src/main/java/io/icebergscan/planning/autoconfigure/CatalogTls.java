package io.icebergscan.planning.autoconfigure;

import java.util.Arrays;
import javax.net.ssl.SSLException;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;

/** A Spring Boot SSL bundle as the Netty client TLS context the planner's HTTP client takes. */
final class CatalogTls {

  private CatalogTls() {
  }

  /** @param source what the bundle is, for a message: the property that named it, or the connection details */
  static SslContext sslContext(SslBundle bundle, String source) {
    SslOptions options = bundle.getOptions();
    SslContextBuilder builder = SslContextBuilder.forClient()
        .keyManager(bundle.getManagers().getKeyManagerFactory())
        .trustManager(bundle.getManagers().getTrustManagerFactory());
    if (options.getCiphers() != null) {
      builder.ciphers(Arrays.asList(options.getCiphers()));
    }
    if (options.getEnabledProtocols() != null) {
      builder.protocols(options.getEnabledProtocols());
    }
    try {
      return builder.build();
    }
    catch (SSLException invalid) {
      throw new IllegalStateException(source + " cannot be used by a TLS client: " + invalid.getMessage(), invalid);
    }
  }
}
