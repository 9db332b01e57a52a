package io.icebergscan.examples;

import java.util.List;
import java.util.Map;

import io.icebergscan.planning.test.DemoCustomers;
import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.springframework.core.env.Environment;
import org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.server.resource.introspection.BadOpaqueTokenException;
import org.springframework.security.oauth2.server.resource.introspection.OAuth2IntrospectionAuthenticatedPrincipal;
import org.springframework.security.oauth2.server.resource.introspection.ReactiveOpaqueTokenIntrospector;
import org.springframework.util.StringUtils;
import reactor.core.publisher.Mono;

/**
 * The demo's callers, with {@code iceberg.rest.identity=caller} (the {@code callers} profile) on the embedded demo
 * catalog: two users whose fixed bearer tokens both the application and the catalog know. The catalog serves
 * {@value #ALICE} the governed {@code demo.customers} with its restrictions (its US rows, masked) and {@value #BOB}
 * without any (all its rows, raw); both read {@code demo.events}. The application's own principal,
 * {@value #SERVICE}, authenticated by {@code iceberg.rest.token}, only checks the catalog's health.
 *
 * <p>This is a demo, not a way to authenticate anyone: the tokens are written here and never expire. As a
 * {@link ReactiveOpaqueTokenIntrospector} it accepts the two users' tokens, and only while the demo catalog that knows
 * them runs; any other token is refused (401). With a catalog of your own, your resource server authenticates your
 * identity provider's tokens instead: a {@code ReactiveJwtDecoder} or {@code ReactiveOpaqueTokenIntrospector} bean of
 * yours ({@link ExampleSecurity}, application-callers.yml).
 */
final class DemoCallers implements ReactiveOpaqueTokenIntrospector {

  static final String ALICE = "alice";
  static final String ALICE_TOKEN = "alice-demo-token";
  static final String BOB = "bob";
  static final String BOB_TOKEN = "bob-demo-token";

  /** The application's own principal at the demo catalog. */
  static final String SERVICE = "example-service";

  /** The application's own token, its {@code iceberg.rest.token} unless one is set. */
  static final String SERVICE_TOKEN = "example-service-token";

  private static final Map<String, String> USERS = Map.of(ALICE_TOKEN, ALICE, BOB_TOKEN, BOB);

  private final EmbeddedIcebergCatalog catalog;

  /** Accepts the users' tokens while {@code catalog}, which {@link #define} has taught them, runs. */
  DemoCallers(EmbeddedIcebergCatalog catalog) {
    this.catalog = catalog;
  }

  /**
   * Teaches the demo catalog, before it starts, its principals: the two users, granted the demo tables with their
   * restrictions, and the application, with the OAuth2 client it is configured with ({@code iceberg.rest.oauth2.*})
   * or else its {@code iceberg.rest.token}, {@value #SERVICE_TOKEN} unless set.
   *
   * @return the settings the application needs to authenticate as itself: its token, unless configured already
   */
  static Map<String, Object> define(EmbeddedIcebergCatalog catalog, Environment environment) {
    catalog.principal(ALICE, ALICE_TOKEN).principal(BOB, BOB_TOKEN);
    for (String user : List.of(ALICE, BOB)) {
      catalog.grant(user, DemoTable.IDENTIFIER).grant(user, DemoCustomers.IDENTIFIER);
    }
    // alice is served the table's policy (DemoCustomers.POLICY); bob's token an empty one of its own
    catalog.readRestrictions(DemoCustomers.IDENTIFIER, BOB_TOKEN, RestrictionPolicy.json("{}"));
    String clientId = environment.getProperty("iceberg.rest.oauth2.client-id");
    if (StringUtils.hasText(clientId)) {
      catalog.principal(SERVICE).clientCredentials(SERVICE, clientId,
          environment.getProperty("iceberg.rest.oauth2.client-secret", ""));
      return Map.of();
    }
    String token = environment.getProperty("iceberg.rest.token");
    if (StringUtils.hasText(token)) {
      catalog.principal(SERVICE, token);
      return Map.of();
    }
    catalog.principal(SERVICE, SERVICE_TOKEN);
    return Map.of("iceberg.rest.token", SERVICE_TOKEN);
  }

  @Override
  public Mono<OAuth2AuthenticatedPrincipal> introspect(String token) {
    String user = USERS.get(token);
    if (user == null || !this.catalog.isRunning()) {
      // never quotes the token
      return Mono.error(new BadOpaqueTokenException("not a demo caller's token"));
    }
    return Mono.just(new OAuth2IntrospectionAuthenticatedPrincipal(user, Map.of("sub", user, "active", true),
        List.of()));
  }

  @Override
  public String toString() {
    return "DemoCallers[" + ALICE + ", " + BOB + "]";
  }
}
