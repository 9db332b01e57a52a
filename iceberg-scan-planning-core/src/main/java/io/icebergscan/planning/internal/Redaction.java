package io.icebergscan.planning.internal;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.springframework.lang.Contract;

/**
 * The one way this project keeps credentials out of text it shows: the user info of every URI in the text
 * ({@code https://user:secret@host/...}) becomes {@value #MASK}, as Spring Boot's actuator masks values. Used for
 * exception messages, {@code toString()}s, health details and the actuator's view of the properties.
 */
public final class Redaction {

  /** What user info is replaced with. */
  public static final String MASK = "******";

  /** A scheme, {@code ://}, and user info up to its {@code @}: nothing of the host, path or query. */
  private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\\s]*@");

  private Redaction() {
  }

  /** {@code text} with the user info of every URI in it masked; {@code null} stays {@code null}. */
  @Contract("null -> null; !null -> !null")
  public static @Nullable String maskUserInfo(@Nullable String text) {
    return text == null ? null : USER_INFO.matcher(text).replaceAll("$1" + MASK + "@");
  }
}
