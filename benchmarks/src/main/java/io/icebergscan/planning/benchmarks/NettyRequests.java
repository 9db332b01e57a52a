package io.icebergscan.planning.benchmarks;

import java.util.UUID;

import io.netty.buffer.Unpooled;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/** A {@code POST} through Reactor Netty's {@code HttpClient} alone: the layer the planner's WebClient runs on. */
final class NettyRequests {

  private NettyRequests() {
  }

  /** The answer's body, not parsed; the same headers the planner and the floor client send. */
  static Mono<byte[]> post(HttpClient client, String uri, byte[] body) {
    return client
        .headers(headers -> headers.set("Accept", "application/json").set("Content-Type", "application/json")
            .set("Idempotency-Key", UUID.randomUUID().toString()))
        .post().uri(uri)
        .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(body)))
        .responseSingle((response, content) -> content.asByteArray());
  }
}
