package io.icebergscan.examples;

/**
 * A setting of the example that cannot apply to the catalog planned, or cannot be used at all: start-up fails with
 * it, and {@link ExampleSettingFailureAnalyzer} reports the setting, why, and what to do.
 */
final class ExampleSettingException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String setting;
  private final String action;

  /**
   * @param setting the property, as written in application.yml or after {@code --}
   * @param description what is wrong with it, naming it
   * @param action what to do instead
   */
  ExampleSettingException(String setting, String description, String action) {
    super(description);
    this.setting = setting;
    this.action = action;
  }

  String setting() {
    return this.setting;
  }

  String action() {
    return this.action;
  }
}
