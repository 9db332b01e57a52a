package io.icebergscan.planning.test;

import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest.Authentication;

/** The connection details carry a fixed bearer token. */
@EmbeddedIcebergCatalogTest(authentication = Authentication.BEARER_TOKEN, branching = 2)
class EmbeddedCatalogBearerTokenTests extends EmbeddedCatalogAuthenticationTests {
}
