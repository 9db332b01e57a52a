package io.icebergscan.planning.test;

import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest.Authentication;

/** The connection details carry OAuth2 client credentials, whose token the planner gets from the catalog's own token endpoint. */
@EmbeddedIcebergCatalogTest(authentication = Authentication.CLIENT_CREDENTIALS, branching = 2)
class EmbeddedCatalogClientCredentialsTests extends EmbeddedCatalogAuthenticationTests {
}
