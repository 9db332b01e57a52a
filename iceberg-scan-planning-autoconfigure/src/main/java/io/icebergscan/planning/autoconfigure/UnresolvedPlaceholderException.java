package io.icebergscan.planning.autoconfigure;

import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A credential property holds a {@code ${…}} placeholder that nothing resolved. Spring Boot leaves such a
 * placeholder in place, so {@code token: ${ICEBERG_TOKEN}} with the variable unset would send
 * {@code Authorization: Bearer ${ICEBERG_TOKEN}} to the catalog: the property is refused instead, and start-up
 * fails with an analysis that names it. The value is shown only when it is nothing but the placeholder; anything
 * beside a placeholder may be (part of) a secret.
 *
 * <p>The one check of every credential property: the planner's (token, OAuth2 client, headers) and the iceberg
 * module's FileIO properties call {@link #throwIfUnresolved} and {@link #throwIfUnresolvedIn}.
 */
public final class UnresolvedPlaceholderException extends RuntimeException {

  /** A placeholder, as Spring's resolver leaves one it cannot resolve. */
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{[^}]*}");

  private final String property;
  private final @Nullable String placeholder;

  private UnresolvedPlaceholderException(String property, @Nullable String placeholder) {
    super(placeholder != null
        ? "'" + property + "' is '" + placeholder + "', a placeholder that nothing resolved"
        : "'" + property + "' holds a placeholder that nothing resolved (its value is not shown: it may be a secret)");
    this.property = property;
    this.placeholder = placeholder;
  }

  /**
   * Refuses {@code value} of {@code property} when it holds an unresolved placeholder.
   *
   * @param property the property's name, as the application sets it
   * @param value the bound value; {@code null} when unset
   */
  public static void throwIfUnresolved(String property, @Nullable String value) {
    if (value != null && PLACEHOLDER.matcher(value).find()) {
      throw new UnresolvedPlaceholderException(property,
          PLACEHOLDER.matcher(value.strip()).matches() ? value.strip() : null);
    }
  }

  /** Refuses every value of a map property ({@code prefix.key}) that holds an unresolved placeholder. */
  public static void throwIfUnresolvedIn(String prefix, Map<String, String> values) {
    values.forEach((key, value) -> throwIfUnresolved(prefix + "." + key, value));
  }

  /** The refused property's name. */
  public String property() {
    return this.property;
  }

  /** The value when it is a bare placeholder, such as {@code ${ICEBERG_TOKEN}}; {@code null} when it holds more. */
  public @Nullable String placeholder() {
    return this.placeholder;
  }
}
