/**
 * Authenticating to the catalog: {@link OAuth2ClientCredentials}, the OAuth2 client-credentials filter that
 * fetches, shares and renews the catalog's access token. A static token needs no class: it is a header.
 */
@NullMarked
package io.icebergscan.planning.auth;

import org.jspecify.annotations.NullMarked;
