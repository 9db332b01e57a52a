package io.icebergscan.planning.test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

/**
 * The requests the catalog received while {@linkplain EmbeddedIcebergCatalog#recordRequests recording} was on, in
 * the order they arrived at the servlet. A recorded request's body is read in full on arrival and handed to
 * Iceberg's servlet from memory; without recording, requests are not touched.
 */
final class RequestRecorder {

  private volatile boolean recording;
  private final List<EmbeddedIcebergCatalog.RecordedRequest> recorded = new ArrayList<>();

  void recording(boolean on) {
    this.recording = on;
  }

  /**
   * The request as the servlet should read it: recorded, and with its body served from the copy, while recording is
   * on; the request itself otherwise.
   */
  HttpServletRequest arrived(HttpServletRequest request) throws IOException {
    if (!this.recording) {
      return request;
    }
    RecordedBody body = new RecordedBody(request, request.getInputStream().readAllBytes());
    @Nullable String text = body.bytes.length == 0 ? null : new String(body.bytes, textCharset(request));
    EmbeddedIcebergCatalog.RecordedRequest arrived = new EmbeddedIcebergCatalog.RecordedRequest(request.getMethod(),
        request.getRequestURI(), request.getHeader("Authorization"), text);
    synchronized (this.recorded) {
      this.recorded.add(arrived);
    }
    return body;
  }

  /** The request's character encoding, for the recorded text; UTF-8, JSON's, without one or with an unknown one. */
  private static Charset textCharset(HttpServletRequest request) {
    String encoding = request.getCharacterEncoding();
    try {
      return encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
    }
    catch (IllegalArgumentException unknown) {
      return StandardCharsets.UTF_8;
    }
  }

  List<EmbeddedIcebergCatalog.RecordedRequest> recorded() {
    synchronized (this.recorded) {
      return List.copyOf(this.recorded);
    }
  }

  void clear() {
    synchronized (this.recorded) {
      this.recorded.clear();
    }
  }

  /**
   * A request whose body has been read already: its stream and reader read the copy. The reader decodes as Jetty's
   * does: with the request's character encoding, ISO-8859-1 without one.
   */
  private static final class RecordedBody extends HttpServletRequestWrapper {

    private final byte[] bytes;
    private @Nullable ServletInputStream stream;
    private @Nullable BufferedReader reader;

    RecordedBody(HttpServletRequest request, byte[] bytes) {
      super(request);
      this.bytes = bytes;
    }

    @Override
    public ServletInputStream getInputStream() {
      ServletInputStream opened = this.stream;
      if (opened == null) {
        opened = new BytesInputStream(this.bytes);
        this.stream = opened;
      }
      return opened;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      BufferedReader opened = this.reader;
      if (opened == null) {
        opened = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(this.bytes), readerCharset()));
        this.reader = opened;
      }
      return opened;
    }

    private Charset readerCharset() throws UnsupportedEncodingException {
      String encoding = getCharacterEncoding();
      try {
        return encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
      }
      catch (IllegalArgumentException unknown) {
        throw new UnsupportedEncodingException(encoding);
      }
    }
  }

  private static final class BytesInputStream extends ServletInputStream {

    private final ByteArrayInputStream bytes;

    BytesInputStream(byte[] bytes) {
      this.bytes = new ByteArrayInputStream(bytes);
    }

    @Override
    public int read() {
      return this.bytes.read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      return this.bytes.read(buffer, offset, length);
    }

    @Override
    public boolean isFinished() {
      return this.bytes.available() == 0;
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setReadListener(ReadListener listener) {
      // all of the body is here already: available at once, then read
      try {
        if (!isFinished()) {
          listener.onDataAvailable();
        }
        if (isFinished()) {
          listener.onAllDataRead();
        }
      }
      catch (IOException failure) {
        listener.onError(failure);
      }
    }
  }
}
