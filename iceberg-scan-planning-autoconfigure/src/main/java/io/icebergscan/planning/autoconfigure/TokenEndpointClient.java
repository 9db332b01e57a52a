package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.netty.channel.ChannelOption;
import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;

/**
 * The HTTP client of the token endpoint when callers' tokens are exchanged: the application's own client-credentials
 * token and every exchange are requested through it. It has what the planner's own client has for the catalog, the
 * connect and response timeouts ({@code iceberg.rest.*-timeout}), the SSL bundle and the
 * {@link ScanPlanningHttpClientCustomizer}s, on the application's {@code WebClient.Builder} (its customizers and
 * observations), with Reactor Netty's shared connection pool: token requests are few.
 */
final class TokenEndpointClient {

  private TokenEndpointClient() {
  }

  static WebClient create(IcebergRestProperties properties, @Nullable SslContext sslContext,
      List<ScanPlanningHttpClientCustomizer> customizers, WebClient.Builder builder) {
    Duration connectTimeout = properties.connectTimeout() != null ? properties.connectTimeout()
        : ScanPlanner.Builder.DEFAULT_CONNECT_TIMEOUT;
    Duration responseTimeout = properties.responseTimeout() != null ? properties.responseTimeout()
        : ScanPlanner.Builder.DEFAULT_RESPONSE_TIMEOUT;
    HttpClient httpClient = HttpClient.create()
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
        .responseTimeout(responseTimeout);
    if (sslContext != null) {
      httpClient = httpClient.secure(tls -> tls.sslContext(sslContext));
    }
    for (ScanPlanningHttpClientCustomizer customizer : customizers) {
      httpClient = customizer.customize(httpClient);
    }
    return builder.clone().clientConnector(new ReactorClientHttpConnector(httpClient)).build();
  }
}
