package io.icebergscan.planning.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.security.oauth2.client.AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** TLS through Spring Boot SSL bundles and OAuth2 client credentials, configured by properties or connection details. */
@ExtendWith(OutputCaptureExtension.class)
class CatalogSecurityAutoConfigurationTests {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final String CLIENT_SECRET = "client-secret-7f3a";
  private static final String STATIC_TOKEN = "static-token-91bc";
  private static final String HEADER_SECRET = "api-key-55d0";
  private static final String CONFIG = "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class, WebClientAutoConfiguration.class,
          TaskExecutionAutoConfiguration.class, SslAutoConfiguration.class));

  private final MockWebServer server = new MockWebServer();
  private final Catalog catalog = new Catalog();

  @TempDir
  private Path certificates;

  @AfterEach
  void stop() {
    this.server.close();
  }

  private String startPlain() throws IOException {
    this.server.setDispatcher(this.catalog);
    this.server.start();
    return "iceberg.rest.uri=" + this.server.url("/catalog");
  }

  /** Starts the catalog on TLS with a certificate from a fresh CA, optionally requiring a client certificate. */
  private String[] startTls(boolean requireClientCertificate) throws IOException {
    this.server.setDispatcher(this.catalog);
    this.server.start();
    HeldCertificate authority = new HeldCertificate.Builder().certificateAuthority(0).build();
    HeldCertificate serverCertificate = new HeldCertificate.Builder().addSubjectAlternativeName(this.server.getHostName())
        .signedBy(authority).build();
    HeldCertificate clientCertificate = new HeldCertificate.Builder().commonName("planner").signedBy(authority)
        .build();
    this.server.useHttps(new HandshakeCertificates.Builder().heldCertificate(serverCertificate)
        .addTrustedCertificate(authority.certificate()).build().sslSocketFactory());
    if (requireClientCertificate) {
      this.server.requireClientAuth();
    }
    Path ca = Files.writeString(this.certificates.resolve("ca.pem"), authority.certificatePem());
    Path clientCert = Files.writeString(this.certificates.resolve("client.pem"), clientCertificate.certificatePem());
    Path clientKey = Files.writeString(this.certificates.resolve("client.key"), clientCertificate.privateKeyPkcs8Pem());
    return new String[] { "iceberg.rest.uri=" + this.server.url("/catalog"),
        "spring.ssl.bundle.pem.catalog.truststore.certificate=file:" + ca,
        "spring.ssl.bundle.pem.catalog.keystore.certificate=file:" + clientCert,
        "spring.ssl.bundle.pem.catalog.keystore.private-key=file:" + clientKey };
  }

  @Test
  void anSslBundleCarriesTheTrustedAuthorityAndTheClientCertificate() throws IOException {
    this.runner.withPropertyValues(startTls(true)).withPropertyValues("iceberg.rest.ssl.bundle=catalog")
        .run(context -> {
          assertThat(context.getBean(ScanPlanner.class).plan(TABLE).planId()).isEqualTo("p");
          RecordedRequest request = this.catalog.requests.get(0);
          assertThat(request.getHandshake()).isNotNull();
          assertThat(request.getHandshake().peerPrincipal().getName()).contains("CN=planner");
        });
  }

  @Test
  void withoutTheBundleTheCatalogsCertificateIsNotTrusted() throws IOException {
    this.runner.withPropertyValues(startTls(false)).run(context ->
        assertThatThrownBy(() -> context.getBean(ScanPlanner.class).plan(TABLE))
            .isInstanceOf(TransportException.class).hasMessageContaining("/v1/config"));
    assertThat(this.catalog.requests).isEmpty();
  }

  @Test
  void anUnknownBundleFailsStartUpNamingIt() throws IOException {
    this.runner.withPropertyValues(startPlain(), "iceberg.rest.ssl.bundle=nope").run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("nope"));
  }

  @Test
  void oauth2PropertiesAuthenticateEveryRequestWithATokenFromTheCatalogsOwnEndpointOverTheSameTls()
      throws IOException {
    this.runner.withPropertyValues(startTls(false)).withPropertyValues("iceberg.rest.ssl.bundle=catalog",
        "iceberg.rest.oauth2.client-id=planner", "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET,
        "iceberg.rest.oauth2.scopes=catalog,PRINCIPAL_ROLE:ALL",
        "iceberg.rest.oauth2.client-authentication-method=client_secret_post").run(context -> {
          ScanPlanner planner = context.getBean(ScanPlanner.class);
          planner.plan(TABLE);
          planner.plan(TABLE);
          assertThat(this.catalog.tokenRequests).hasSize(1);
          RecordedRequest tokenRequest = this.catalog.tokenRequests.get(0);
          assertThat(tokenRequest.getUrl().encodedPath()).isEqualTo("/catalog/v1/oauth/tokens");
          assertThat(tokenRequest.getBody().utf8()).contains("grant_type=client_credentials",
              "client_id=planner", "client_secret=" + CLIENT_SECRET, "scope=catalog+PRINCIPAL_ROLE%3AALL");
          assertThat(this.catalog.requests).hasSize(3)
              .allSatisfy(request -> assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer tok-1"));
        });
  }

  @Test
  void aConfiguredTokenEndpointIsUsed() throws IOException {
    this.runner.withPropertyValues(startPlain(), "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET,
        "iceberg.rest.oauth2.token-uri=" + this.server.url("/idp/token")).run(context -> {
          context.getBean(ScanPlanner.class).plan(TABLE);
          assertThat(this.catalog.tokenRequests).singleElement()
              .satisfies(request -> assertThat(request.getUrl().encodedPath()).isEqualTo("/idp/token"))
              .satisfies(request -> assertThat(request.getHeaders().get("Authorization")).isEqualTo(basic()));
        });
  }

  @Test
  void theCatalogScopeIsTheDefaultAndAnEmptyScopesPropertyRequestsNone() throws IOException {
    String[] oauth2 = { startPlain(), "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET, "iceberg.rest.oauth2.client-authentication-method=client_secret_post" };
    this.runner.withPropertyValues(oauth2).run(context -> {
      context.getBean(ScanPlanner.class).plan(TABLE);
      assertThat(this.catalog.tokenRequests).singleElement()
          .satisfies(request -> assertThat(request.getBody().utf8()).contains("scope=catalog"));
    });
    this.runner.withPropertyValues(oauth2).withPropertyValues("iceberg.rest.oauth2.scopes=").run(context -> {
      context.getBean(ScanPlanner.class).plan(TABLE);
      assertThat(this.catalog.tokenRequests).hasSize(2).last()
          .satisfies(request -> assertThat(request.getBody().utf8()).contains("client_id=planner")
              .doesNotContain("scope="));
    });
  }

  @Test
  void httpClientCustomizerBeansReachTheCatalogAndTheTokenEndpoint() throws IOException {
    this.runner.withPropertyValues(startPlain(), "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET)
        .withBean(ScanPlanningHttpClientCustomizer.class,
            () -> client -> client.headers(headers -> headers.set("X-Via", "corporate-proxy")))
        .run(context -> {
          context.getBean(ScanPlanner.class).plan(TABLE);
          assertThat(this.catalog.tokenRequests).singleElement()
              .satisfies(request -> assertThat(request.getHeaders().get("X-Via")).isEqualTo("corporate-proxy"));
          assertThat(this.catalog.requests).isNotEmpty()
              .allSatisfy(request -> assertThat(request.getHeaders().get("X-Via")).isEqualTo("corporate-proxy"));
        });
  }

  @Test
  void aSilentTokenEndpointEndsAtTheResponseTimeoutNotTheRequestTimeout() throws IOException {
    this.catalog.tokenDelay = Duration.ofSeconds(30);
    this.runner.withPropertyValues(startPlain(), "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET, "iceberg.rest.response-timeout=500ms",
        "iceberg.rest.request-timeout=60s", "iceberg.rest.retry.max-retries=0").run(context -> {
          long started = System.nanoTime();
          assertThatThrownBy(() -> context.getBean(ScanPlanner.class).plan(TABLE))
              .isInstanceOf(TransportException.class)
              .hasMessageContaining("POST " + this.server.url("/catalog/v1/oauth/tokens") + " failed")
              .hasMessageContaining("no response within the response timeout");
          assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
          assertThat(this.catalog.requests).as("nothing reached the catalog without a token").isEmpty();
        });
  }

  @Test
  void oauth2WithoutSpringSecurityFailsStartUpSayingWhatToAdd() throws IOException {
    this.runner.withClassLoader(new FilteredClassLoader(
        AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager.class))
        .withPropertyValues(startPlain(), "iceberg.rest.oauth2.client-id=planner",
            "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET)
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("org.springframework.security:spring-security-oauth2-client"));
  }

  @Test
  void conflictingOrIncompleteAuthenticationFailsStartUp() throws IOException {
    String uri = startPlain();
    this.runner.withPropertyValues(uri, "iceberg.rest.token=" + STATIC_TOKEN, "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET).run(context -> assertThat(context).getFailure()
            .rootCause().hasMessageContaining("choose one").hasMessageNotContaining(STATIC_TOKEN));
    this.runner.withPropertyValues(uri, "iceberg.rest.oauth2.client-id=planner").run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("iceberg.rest.oauth2.client-secret"));
    this.runner.withPropertyValues(uri, "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET, "iceberg.rest.oauth2.client-authentication-method=jwt")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("client_secret_basic or client_secret_post").hasMessageNotContaining(CLIENT_SECRET));
  }

  /**
   * The README's {@code token: ${ICEBERG_TOKEN:}} beside OAuth2, and the example's {@code client-id:
   * ${ICEBERG_CLIENT_ID:}} with the variables unset: what is empty is not set, so there is nothing to choose between,
   * and no OAuth2 without a client id.
   */
  @Test
  void emptyCredentialsAreUnset() throws IOException {
    String uri = startPlain();
    String unset = "${ICEBERG_SCAN_PLANNING_TEST_UNSET_7F3A:}";
    this.runner.withPropertyValues(uri, "iceberg.rest.token=" + unset, "iceberg.rest.oauth2.client-id=planner",
        "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET).run(context -> {
          context.getBean(ScanPlanner.class).plan(TABLE);
          assertThat(this.catalog.tokenRequests).hasSize(1);
          assertThat(this.catalog.requests).isNotEmpty()
              .allSatisfy(request -> assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer tok-1"));
        });
    this.runner.withPropertyValues(uri, "iceberg.rest.oauth2.client-id=" + unset,
        "iceberg.rest.oauth2.client-secret=" + unset).run(context -> {
          context.getBean(ScanPlanner.class).plan(TABLE);
          assertThat(this.catalog.tokenRequests).as("no OAuth2").hasSize(1);
          assertThat(this.catalog.requests).hasSize(4).last()
              .satisfies(request -> assertThat(request.getHeaders().get("Authorization")).isNull());
        });
  }

  @Test
  void secretsNeverReachTheLogsEvenAtTrace(CapturedOutput output) throws IOException {
    LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
    logging.setLogLevel(LoggingSystem.ROOT_LOGGER_NAME, LogLevel.TRACE);
    try {
      this.catalog.refuseTokens = true;
      this.runner.withPropertyValues(startPlain(), "iceberg.rest.oauth2.client-id=planner",
          "iceberg.rest.oauth2.client-secret=" + CLIENT_SECRET, "iceberg.rest.headers.X-Api-Key=" + HEADER_SECRET)
          .run(context -> {
            assertThatThrownBy(() -> context.getBean(ScanPlanner.class).plan(TABLE))
                .hasMessageNotContaining(CLIENT_SECRET).hasMessageNotContaining(HEADER_SECRET);
            assertThat(context.getBean(IcebergRestProperties.class).toString()).doesNotContain(CLIENT_SECRET)
                .doesNotContain(HEADER_SECRET);
          });
      this.catalog.refuseTokens = false;
      this.runner.withPropertyValues("iceberg.rest.uri=" + this.server.url("/catalog"),
          "iceberg.rest.token=" + STATIC_TOKEN).run(context -> context.getBean(ScanPlanner.class).plan(TABLE));
    }
    finally {
      logging.setLogLevel(LoggingSystem.ROOT_LOGGER_NAME, LogLevel.INFO);
    }
    assertThat(this.catalog.requests).as("the plan with the static token ran").hasSize(2);
    assertThat(output.getAll()).as("TRACE logging ran").contains("/catalog/v1/config")
        .doesNotContain(CLIENT_SECRET).doesNotContain(basic()).doesNotContain(HEADER_SECRET)
        .doesNotContain(STATIC_TOKEN)
        .doesNotContain("tok-");
  }

  /**
   * One bean replaces every connection property, as Boot's own connection details do: the URI, the credentials and
   * the SSL bundle come from it, and what it leaves unset is not taken from {@code iceberg.rest.*}.
   */
  @Test
  void aConnectionDetailsBeanCarriesTheTokenAndTheSslBundleInPlaceOfTheProperties() throws IOException {
    String[] tls = startTls(true);
    this.runner.withPropertyValues(tls).withPropertyValues("iceberg.rest.uri=http://properties.invalid",
        "iceberg.rest.token=not-this-one", "iceberg.rest.ssl.bundle=nope")
        .withBean(ConnectionDetails.class, this.server.url("/catalog").toString(), STATIC_TOKEN, null)
        .run(context -> {
          assertThat(context.getBean(ScanPlanner.class).plan(TABLE).planId()).isEqualTo("p");
          assertThat(this.catalog.requests).hasSize(2).allSatisfy(request -> {
            assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + STATIC_TOKEN);
            assertThat(request.getHandshake().peerPrincipal().getName()).contains("CN=planner");
          });
        });
  }

  @Test
  void aConnectionDetailsBeanCarriesOAuth2ClientCredentialsAndThePropertiesSayHowTheyAreSent() throws IOException {
    String uri = startPlain().substring("iceberg.rest.uri=".length());
    this.runner.withPropertyValues("iceberg.rest.oauth2.client-authentication-method=client_secret_post",
        "iceberg.rest.oauth2.client-id=not-this-one", "iceberg.rest.oauth2.client-secret=not-this-either")
        .withBean(ConnectionDetails.class, uri, null, new IcebergRestConnectionDetails.ClientCredentials("planner",
            CLIENT_SECRET, this.server.url("/idp/token").toString(), List.of("PRINCIPAL_ROLE:ALL")))
        .run(context -> {
          context.getBean(ScanPlanner.class).plan(TABLE);
          assertThat(this.catalog.tokenRequests).singleElement().satisfies(request -> {
            assertThat(request.getUrl().encodedPath()).isEqualTo("/idp/token");
            assertThat(request.getBody().utf8()).contains("client_id=planner", "client_secret=" + CLIENT_SECRET,
                "scope=PRINCIPAL_ROLE%3AALL");
          });
          assertThat(this.catalog.requests).hasSize(2)
              .allSatisfy(request -> assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer tok-1"));
        });
  }

  @Test
  void connectionDetailsWithBothATokenAndClientCredentialsFailStartUpSayingSo() throws IOException {
    String uri = startPlain().substring("iceberg.rest.uri=".length());
    this.runner.withBean(ConnectionDetails.class, uri, STATIC_TOKEN,
        new IcebergRestConnectionDetails.ClientCredentials("planner", CLIENT_SECRET, null, null))
        .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("choose one")
            .hasMessageContaining(ConnectionDetails.class.getName()).hasMessageNotContaining(STATIC_TOKEN)
            .hasMessageNotContaining(CLIENT_SECRET));
    assertThat(this.catalog.requests).isEmpty();
  }

  @Test
  void clientCredentialsNeedAnIdAndASecretAndNeverShowTheSecret() {
    assertThat(new IcebergRestConnectionDetails.ClientCredentials("planner", CLIENT_SECRET,
        "https://alice:pw@idp.example.com/token", null).toString()).contains("planner", "******@idp.example.com")
        .doesNotContain(CLIENT_SECRET).doesNotContain("alice:pw");
    assertThatThrownBy(() -> new IcebergRestConnectionDetails.ClientCredentials(" ", CLIENT_SECRET, null, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client id")
        .hasMessageNotContaining(CLIENT_SECRET);
    assertThatThrownBy(() -> new IcebergRestConnectionDetails.ClientCredentials("planner", "", null, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client secret");
  }

  /** The client's HTTP Basic credentials at the token endpoint. */
  private static String basic() {
    byte[] credentials = ("planner:" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8);
    return "Basic " + Base64.getEncoder().encodeToString(credentials);
  }

  /** An application's own connection details; its SSL bundle is the context's {@code catalog} bundle, if any. */
  static final class ConnectionDetails implements IcebergRestConnectionDetails {

    private final String uri;
    private final @Nullable String token;
    private final @Nullable ClientCredentials clientCredentials;
    private final @Nullable SslBundle sslBundle;

    ConnectionDetails(String uri, @Nullable String token, @Nullable ClientCredentials clientCredentials,
        ObjectProvider<SslBundles> bundles) {
      this.uri = uri;
      this.token = token;
      this.clientCredentials = clientCredentials;
      SslBundles available = bundles.getIfAvailable();
      this.sslBundle = available != null && available.getBundleNames().contains("catalog")
          ? available.getBundle("catalog") : null;
    }

    @Override
    public String getUri() {
      return this.uri;
    }

    @Override
    public @Nullable String getToken() {
      return this.token;
    }

    @Override
    public @Nullable ClientCredentials getClientCredentials() {
      return this.clientCredentials;
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
      return this.sslBundle;
    }
  }

  /** A token endpoint at {@code /…/token(s)} and a catalog that needs its tokens when OAuth2 is on. */
  private static final class Catalog extends Dispatcher {

    final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
    final List<RecordedRequest> tokenRequests = new CopyOnWriteArrayList<>();
    final AtomicInteger issued = new AtomicInteger();
    volatile boolean refuseTokens;
    volatile Duration tokenDelay = Duration.ZERO;

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String path = request.getUrl().encodedPath();
      if (path.endsWith("/token") || path.endsWith("/tokens")) {
        this.tokenRequests.add(request);
        if (!this.tokenDelay.isZero()) {
          return new MockResponse.Builder().headersDelay(this.tokenDelay.toMillis(), TimeUnit.MILLISECONDS)
              .body("{}").build();
        }
        return this.refuseTokens
            ? json(401, "{\"error\":\"invalid_client\",\"error_description\":\"unknown client\"}")
            : json(200, "{\"access_token\":\"tok-" + this.issued.incrementAndGet()
                + "\",\"token_type\":\"bearer\",\"expires_in\":3600}");
      }
      this.requests.add(request);
      return json(200, path.endsWith("/v1/config") ? CONFIG : "{\"status\":\"completed\",\"plan-id\":\"p\"}");
    }

    private static MockResponse json(int status, String body) {
      return new MockResponse.Builder().code(status).setHeader("Content-Type", "application/json").body(body).build();
    }
  }
}
