package io.icebergscan.examples;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.util.Date;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.icebergscan.planning.test.DemoCustomers;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code callers} profile on a catalog of your own, as application-callers.yml tells: the application authenticates
 * your identity provider's JWTs with a {@code ReactiveJwtDecoder} of yours, and the rows endpoint plans and reads as
 * the caller, whose JWT reaches the catalog, which serves that principal its table's restrictions. The demo callers are
 * nobody there.
 */
class CallerIdentityOwnCatalogTests {

  private static final KeyPair IDENTITY_PROVIDER = rsa();
  private static final KeyPair SOMEONE_ELSE = rsa();

  /** Your resource server's decoder of the identity provider's JWTs: not a component, so no other test scans it. */
  static class JwtDecoderOfYours {

    @Bean
    ReactiveJwtDecoder jwtDecoder() {
      return NimbusReactiveJwtDecoder.withPublicKey((RSAPublicKey) IDENTITY_PROVIDER.getPublic()).build();
    }
  }

  @Test
  void aJwtDecoderOfYoursAuthenticatesTheCallersWhoseTokensReachYourCatalog() throws Exception {
    String dave = jwt("dave", IDENTITY_PROVIDER);
    try (EmbeddedIcebergCatalog yours = EmbeddedIcebergCatalog.create()) {
      DemoCustomers.create(yours);
      yours.principal("dave", dave).principal("application", "application-token").recordRequests(true).start();
      try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
          ScanPlanningExampleApplication.class, JwtDecoderOfYours.class).profiles("callers")
          .run("--server.port=0", "--iceberg.rest.uri=" + yours.uri(), "--example.table=" + DemoCustomers.NAME,
              "--iceberg.rest.token=application-token")) {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        String customers = "/tables/" + DemoCustomers.NAME + "/rows?limit=100";

        assertThat(CallerIdentityExampleTests.rows(CallerIdentityExampleTests.get(port, customers, dave)))
            .hasSize(DemoCustomers.VISIBLE_ROWS).allSatisfy(CallerIdentityExampleTests::assertRestricted);
        assertThat(yours.recordedRequests()).filteredOn(request -> request.path().contains("/tables/customers"))
            .isNotEmpty().allSatisfy(request -> assertThat(request.authorization()).isEqualTo("Bearer " + dave));
        assertThat(CallerIdentityExampleTests.get(port, customers, jwt("dave", SOMEONE_ELSE)).status())
            .as("a JWT your identity provider did not sign").isEqualTo(401);
        assertThat(CallerIdentityExampleTests.get(port, customers, DemoCallers.ALICE_TOKEN).status())
            .as("the demo callers are the demo catalog's only").isEqualTo(401);
        assertThat(CallerIdentityExampleTests.get(port, customers, null).json().get("detail").asString())
            .isEqualTo("The request has no authenticated caller");
        assertThat(CallerIdentityExampleTests.get(port, "/actuator/health", null).json().path("components")
            .path("icebergScanPlanning").path("status").asString()).as("checked as the application").isEqualTo("UP");
      }
    }
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    }
    catch (java.security.NoSuchAlgorithmException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /** A JWT of {@code subject}, valid for an hour, signed with {@code keys}. */
  private static String jwt(String subject, KeyPair keys) throws Exception {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).issueTime(new Date())
        .expirationTime(new Date(System.currentTimeMillis() + 3_600_000)).build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    jwt.sign(new RSASSASigner(keys.getPrivate()));
    return jwt.serialize();
  }
}
