package io.icebergscan.planning.autoconfigure;

import java.util.Arrays;
import javax.net.ssl.SSLException;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;

/** A Spring Boot SSL bundle as the Netty client TLS context the planner's HTTP client takes. */
final class CatalogTls {

  private CatalogTls() {
  }

  /**
   * The TLS context of the connection's SSL bundle, or {@code null} for the JVM's defaults: for the catalog and the
   * token endpoints alike.
   */
  static @Nullable SslContext sslContext(IcebergRestConnectionDetails connection, IcebergRestProperties properties) {
    SslBundle bundle = connection.getSslBundle();
    if (bundle == null) {
      return null;
    }
    return sslContext(bundle, connection instanceof PropertiesIcebergRestConnectionDetails
        ? "the SSL bundle '" + properties.ssl().bundle() + "' (iceberg.rest.ssl.bundle)"
        : "the SSL bundle of " + connection.getClass().getName());
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
