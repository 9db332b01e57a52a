package io.icebergscan.planning.internal.wire;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.internal.wire.JsonReader.Path;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * A body that Jackson could not read, in words of this project's own: what kind of break, at which line and column,
 * inside which member, and never the text around it. Jackson's messages quote that text, which in a config, a
 * table, a credentials or a token answer may be a secret, so they are read here only to choose a phrase.
 */
public final class JsonSyntaxErrors {

  /** How Jackson's messages begin, and what each kind of break is called here; a message not listed is "malformed". */
  private static final List<Map.Entry<String, String>> PROBLEMS = List.of(
      Map.entry("Unrecognized token", "an unrecognized token"),
      Map.entry("Unexpected character", "an unexpected character"),
      Map.entry("Duplicate", "a duplicate member"),
      Map.entry("Illegal unquoted character", "an unescaped control character in a string"),
      Map.entry("Unrecognized character escape", "an invalid escape in a string"),
      Map.entry("Invalid UTF-8", "invalid UTF-8"),
      Map.entry("Invalid numeric value", "an invalid number"),
      Map.entry("Non-standard token", "a non-standard token"),
      Map.entry("Trailing token", "more content after the JSON value"));

  private JsonSyntaxErrors() {
  }

  /**
   * What is wrong with the body, to follow "the body is", such as {@code not valid JSON (an unrecognized token) at
   * line 1, column 18}; quotes nothing of it.
   */
  public static String describe(JacksonException failure) {
    String what;
    if (failure instanceof StreamConstraintsException) {
      what = "beyond the parser's limits";
    }
    else if (failure instanceof MismatchedInputException && !startsWith(failure, "Trailing token")) {
      // a well-formed body of the wrong shape, as a decoder reading it into a map finds out
      what = "not the JSON object expected";
    }
    else {
      what = "not valid JSON (" + problem(failure) + ")";
    }
    TokenStreamLocation location = failure.getLocation();
    return location == null || location.getLineNr() < 1 ? what
        : what + " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  /**
   * The members the break is inside, such as {@code storage-credentials[0].config}, or {@code null} at the top.
   * The name the parser read last is left out, unless it is a duplicate: in a broken body it may be a value in a
   * name's place (<code>{"config": {"secret"}}</code>), while the names of the enclosing members, and a name seen
   * twice, were each followed by their value.
   */
  static @Nullable Path enclosing(JacksonException failure) {
    // after the value, the parser is already in whatever follows it
    if (!(failure.processor() instanceof JsonParser parser) || startsWith(failure, "Trailing token")) {
      return null;
    }
    TokenStreamContext context = parser.streamReadContext();
    Deque<TokenStreamContext> outer = new ArrayDeque<>();
    for (TokenStreamContext parent = context.getParent(); parent != null && !parent.inRoot();
        parent = parent.getParent()) {
      outer.push(parent);
    }
    Path path = null;
    for (TokenStreamContext parent : outer) {
      path = entry(path, parent);
    }
    return context.inArray() || startsWith(failure, "Duplicate") ? entry(path, context) : path;
  }

  /** {@code path} and the entry {@code context} is at: its element's index, or its member's name. */
  private static @Nullable Path entry(@Nullable Path path, TokenStreamContext context) {
    if (context.inArray()) {
      return new Path(path, null, context.getCurrentIndex());
    }
    String name = context.currentName();
    return name == null ? path : path == null ? Path.of(name) : path.field(name);
  }

  private static String problem(JacksonException failure) {
    if (failure instanceof UnexpectedEndOfInputException) {
      return "the body ends inside a value";
    }
    for (Map.Entry<String, String> known : PROBLEMS) {
      if (startsWith(failure, known.getKey())) {
        return known.getValue();
      }
    }
    return "malformed";
  }

  private static boolean startsWith(JacksonException failure, String opening) {
    String message = failure.getOriginalMessage();
    return message != null && message.startsWith(opening);
  }
}
