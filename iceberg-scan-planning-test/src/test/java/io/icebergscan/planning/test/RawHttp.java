package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.util.JsonUtil;

/** Plain HTTP against the catalog, to look at the wire format itself. */
final class RawHttp {

  record Response(int status, String body) {

    JsonNode json() {
      try {
        return JsonUtil.mapper().readTree(this.body);
      }
      catch (IOException failure) {
        throw new UncheckedIOException("not JSON: " + this.body, failure);
      }
    }
  }

  private final HttpClient http = HttpClient.newHttpClient();
  private final String base;

  RawHttp(EmbeddedIcebergCatalog catalog) {
    this.base = catalog.uri();
  }

  /**
   * @param headers names and values, alternating: {@code "Authorization", "Bearer t"}
   */
  Response get(String path, String... headers) {
    return send(request(path, headers).GET());
  }

  /**
   * @param headers names and values, alternating: {@code "Authorization", "Bearer t"}
   */
  Response post(String path, String json, String... headers) {
    return send(request(path, headers).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  /**
   * @param form the body, form-encoded already: {@code "grant_type=client_credentials&client_id=a"}
   * @param headers names and values, alternating: {@code "Authorization", "Basic …"}
   */
  Response postForm(String path, String form, String... headers) {
    return send(request(path, headers).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)));
  }

  /**
   * @param headers names and values, alternating: {@code "Authorization", "Bearer t"}
   */
  Response head(String path, String... headers) {
    return send(request(path, headers).method("HEAD", HttpRequest.BodyPublishers.noBody()));
  }

  /**
   * @param headers names and values, alternating: {@code "Authorization", "Bearer t"}
   */
  Response delete(String path, String... headers) {
    return send(request(path, headers).DELETE());
  }

  /**
   * POST …/tasks for a handle.
   *
   * @param headers names and values, alternating: {@code "Authorization", "Bearer t"}
   */
  Response tasks(String tablePath, String planTask, String... headers) {
    return post(tablePath + "/tasks", "{\"plan-task\":" + quote(planTask) + "}", headers);
  }

  private HttpRequest.Builder request(String path, String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path));
    return headers.length == 0 ? request : request.headers(headers);
  }

  /** A JSON string of the value. */
  static String quote(String value) {
    return JsonUtil.mapper().getNodeFactory().textNode(value).toString();
  }

  private Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.body());
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(interrupted);
    }
  }
}
