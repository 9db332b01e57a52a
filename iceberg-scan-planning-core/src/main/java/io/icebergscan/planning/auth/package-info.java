/**
 * Authenticating to the catalog: {@link OAuth2ClientCredentials}, the OAuth2 client-credentials filter that
 * fetches, shares and renews the planner's access token (a static token needs no class: it is a header); and whose
 * call it is: a caller's {@link CatalogCredentials}, which a planner's {@linkplain
 * io.icebergscan.planning.ScanPlanner#as view} sends through {@link CallerAuthentication} in place of its own, and
 * the {@link Callers} a planner that plans as its callers finds them with.
 */
@NullMarked
package io.icebergscan.planning.auth;

import org.jspecify.annotations.NullMarked;
