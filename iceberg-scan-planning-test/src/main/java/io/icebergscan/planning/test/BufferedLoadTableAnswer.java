package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

/**
 * The answer to a load, creation or registration of a table, held back while Iceberg's servlet writes it, so that
 * the {@code read-restrictions} member its response class lacks can be added to the JSON object before it is sent.
 * Status and headers go through to the response at once; only the body waits. Iceberg's servlet writes bodies
 * through {@link #getWriter()}, the only way this answer takes one.
 *
 * <p>Once the body's writer is closed (Iceberg's mapper closes it after writing), the answer counts as committed, as
 * Jetty's does, and keeps its status: Iceberg's servlet sets 500 after its error handler has written an error
 * answer, which only a committed answer ignores.
 */
final class BufferedLoadTableAnswer extends HttpServletResponseWrapper {

  private static final String MEMBER = "read-restrictions";

  private final StringWriter body = new StringWriter();
  private final PrintWriter writer = new PrintWriter(this.body) {
    @Override
    public void close() {
      BufferedLoadTableAnswer.this.committed = true;
      super.close();
    }
  };
  private boolean committed;

  BufferedLoadTableAnswer(HttpServletResponse response) {
    super(response);
  }

  @Override
  public PrintWriter getWriter() {
    return this.writer;
  }

  @Override
  public boolean isCommitted() {
    return this.committed || super.isCommitted();
  }

  @Override
  public void setStatus(int status) {
    if (!this.committed) {
      super.setStatus(status);
    }
  }

  @Override
  public ServletOutputStream getOutputStream() {
    throw new IllegalStateException("a table's answer is buffered as text: write it with getWriter()");
  }

  /**
   * Sends the body written so far to the wrapped response: with {@code "read-restrictions": restrictions} added to
   * it when there are restrictions and the answer is a 200, as it is otherwise.
   *
   * @param restrictions the member's value as JSON text, {@code null} for none
   */
  void send(@Nullable String restrictions) throws IOException {
    String answer = this.body.toString();
    if (answer.isEmpty()) {
      return;
    }
    HttpServletResponse response = (HttpServletResponse) getResponse();
    if (restrictions != null && response.getStatus() == HttpServletResponse.SC_OK) {
      answer = withMember(answer, restrictions);
    }
    response.getWriter().write(answer);
  }

  /**
   * A JSON object's text with one more member, last: Iceberg's own text is kept as it is, byte for byte, instead of
   * being parsed and written again.
   */
  static String withMember(String object, String value) {
    int open = object.indexOf('{');
    int close = object.lastIndexOf('}');
    if (open < 0 || close < open || !object.substring(0, open).isBlank() || !object.substring(close + 1).isBlank()) {
      throw new IllegalStateException("a table's answer is not a JSON object: " + object);
    }
    String separator = object.substring(open + 1, close).isBlank() ? "" : ",";
    return object.substring(0, close) + separator + "\"" + MEMBER + "\":" + value + object.substring(close);
  }
}
