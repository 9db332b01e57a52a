package io.icebergscan.planning.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * What the planner's problem details tell the application's HTTP clients beyond the kind of failure, as
 * {@code spring.web.error.include-message} and {@code include-exception} do for Spring Boot's error pages: nothing by
 * default, since an exception's message may quote the catalog's URI and its internals.
 *
 * @param includeMessage Whether a problem's "detail" is the exception's message (user info in URIs masked), which may
 *     quote the catalog's URI, host and port, its error text and its table names, instead of the fixed detail of
 *     its kind. For development.
 * @param includeException Whether a problem has an "exception" member naming the exception's type. For development.
 */
@ConfigurationProperties("iceberg.rest.scan-planning.problem-details")
public record ScanPlanningProblemDetailsProperties(
    @DefaultValue("false") boolean includeMessage,
    @DefaultValue("false") boolean includeException) {
}
