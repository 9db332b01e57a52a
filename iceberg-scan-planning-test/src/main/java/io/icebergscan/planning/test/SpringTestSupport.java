package io.icebergscan.planning.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * The Spring side of the extension, in a class of its own so that it is loaded only when a test runs
 * with Spring's extension (and Spring is therefore on the classpath).
 */
final class SpringTestSupport {

  private SpringTestSupport() {
  }

  /** The catalog bean the context customizer registered in the test's application context. */
  static EmbeddedIcebergCatalog catalog(ExtensionContext context) {
    return SpringExtension.getApplicationContext(context).getBean(EmbeddedIcebergCatalog.class);
  }
}
