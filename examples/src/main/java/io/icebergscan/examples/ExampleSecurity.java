package io.icebergscan.examples;

import io.icebergscan.planning.autoconfigure.IcebergRestProperties;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.server.resource.introspection.ReactiveOpaqueTokenIntrospector;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.util.ClassUtils;

/**
 * Who may call the example. With {@code iceberg.rest.identity=service} (the default) anyone may, without a token: the
 * planner plans as the application. With {@code iceberg.rest.identity=caller} (the {@code callers} profile) the
 * application is an OAuth2 resource server of bearer tokens, and the rows endpoint plans as the caller whose token
 * authenticated the request: the planner finds it in Spring Security's context. {@code /tables/**} stays open, so
 * that a request without a token reaches the planner, which answers it 401 ({@code MissingCallerException}); a token
 * that is not accepted is answered 401 by Spring Security; health is open, and everything else needs a token.
 *
 * <p>A caller's token is authenticated, in this order, by a {@code ReactiveJwtDecoder} bean of yours (JWTs, with
 * {@code spring-security-oauth2-jose}), a {@link ReactiveOpaqueTokenIntrospector} bean of yours (opaque tokens, e.g.
 * {@code SpringReactiveOpaqueTokenIntrospector} at your identity provider's introspection endpoint), or, on the
 * embedded demo catalog only, {@link DemoCallers}. A catalog of your own with neither bean fails start-up saying so.
 *
 * <p>The choice is made when the chain is built, not by conditions on beans, so that the application processed by
 * Spring AOT at build time has the same beans whichever identity it runs with.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebFluxSecurity
class ExampleSecurity {

  /** Spring Security's decoder of JWTs, in {@code spring-security-oauth2-jose}, which the example does not bring. */
  static final String JWT_DECODER = "org.springframework.security.oauth2.jwt.ReactiveJwtDecoder";

  @Bean
  SecurityWebFilterChain exampleSecurityFilterChain(ServerHttpSecurity http, IcebergRestProperties catalog,
      ListableBeanFactory beans, ObjectProvider<ReactiveOpaqueTokenIntrospector> introspectors,
      ObjectProvider<DemoCatalog.Started> demo) {
    // no browser sessions to forge requests in: the rows endpoint reads, and callers send tokens, not cookies
    http.csrf(ServerHttpSecurity.CsrfSpec::disable);
    if (catalog.identity() != IcebergRestProperties.Identity.CALLER) {
      return http.authorizeExchange(exchanges -> exchanges.anyExchange().permitAll()).build();
    }
    http.authorizeExchange(exchanges -> exchanges.pathMatchers("/tables/**", "/actuator/health/**").permitAll()
        .anyExchange().authenticated());
    if (hasJwtDecoder(beans)) {
      return http.oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults())).build();
    }
    ReactiveOpaqueTokenIntrospector introspector = introspectors.getIfUnique(() -> demoCallers(demo.getIfAvailable(),
        catalog.uri()));
    return http.oauth2ResourceServer(server -> server.opaqueToken(opaque -> opaque.introspector(introspector)))
        .build();
  }

  private static boolean hasJwtDecoder(ListableBeanFactory beans) {
    ClassLoader classLoader = ExampleSecurity.class.getClassLoader();
    return ClassUtils.isPresent(JWT_DECODER, classLoader)
        && beans.getBeanNamesForType(ClassUtils.resolveClassName(JWT_DECODER, classLoader)).length > 0;
  }

  private static ReactiveOpaqueTokenIntrospector demoCallers(DemoCatalog.@Nullable Started demo,
      @Nullable String uri) {
    if (demo == null) {
      throw new ExampleSettingException("iceberg.rest.identity", "iceberg.rest.identity is caller, and "
          + "iceberg.rest.uri points to a catalog of your own (" + uri + "), but the application has no way to "
          + "authenticate its callers' bearer tokens: it has neither a ReactiveJwtDecoder nor a "
          + "ReactiveOpaqueTokenIntrospector bean, and the demo callers are known to the embedded demo catalog only.",
          "Define a bean for your identity provider: a ReactiveJwtDecoder for JWTs (add "
              + "org.springframework.security:spring-security-oauth2-jose; e.g. "
              + "ReactiveJwtDecoders.fromIssuerLocation(\"https://idp.example.com\")) or a "
              + "ReactiveOpaqueTokenIntrospector for opaque tokens (e.g. SpringReactiveOpaqueTokenIntrospector"
              + ".withIntrospectionUri(...)), as application-callers.yml shows; or remove iceberg.rest.identity=caller "
              + "to plan as the application.");
    }
    return new DemoCallers(demo.catalog());
  }
}
