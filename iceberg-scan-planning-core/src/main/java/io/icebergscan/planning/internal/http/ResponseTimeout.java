package io.icebergscan.planning.internal.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import reactor.netty.NettyPipeline;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;

/**
 * The response timeout of one HTTP/1.1 connection, installed once, when the connection is made: from the end of a
 * request until the end of its response, a silence of the timeout fails the exchange with Netty's
 * {@link ReadTimeoutException} and closes the connection, as Reactor Netty's {@code responseTimeout} does.
 *
 * <p>That one adds a {@code ReadTimeoutHandler} to the pipeline for every request and removes it after, scheduling
 * and cancelling a timer each time. This keeps one timer per connection, armed only while a response is awaited
 * and re-armed from the last read when it fires ({@code IdleStateHandler}'s way), so back-to-back requests on a
 * kept-alive connection add nothing to its pipeline and schedule at most one check per timeout. Time idle in the
 * pool between requests is not a silence.
 *
 * <p>Confined to the channel's event loop, as every handler of one channel is.
 */
public final class ResponseTimeout extends ChannelDuplexHandler {

  /** Its name in the pipeline, right after the HTTP codec. */
  public static final String NAME = "iceberg-scan-planning.response-timeout";

  private final long timeoutNanos;
  private @Nullable ChannelHandlerContext context;
  private final Runnable check = this::check;
  private @Nullable Future<?> timer;
  private boolean awaiting;
  private long lastRead;

  ResponseTimeout(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  /**
   * {@code client} with this timeout on each of its HTTP/1.1 connections. Where it would not apply (a client of
   * other protocols, or one given a response timeout of its own, which is kept), Reactor Netty's is used.
   */
  public static HttpClient on(HttpClient client, Duration timeout) {
    if (client.configuration().responseTimeout() != null) {
      return client;
    }
    HttpProtocol[] protocols = client.configuration().protocols();
    if (protocols.length != 1 || protocols[0] != HttpProtocol.HTTP11) {
      return client.responseTimeout(timeout);
    }
    return client.doOnChannelInit((observer, channel, remoteAddress) -> {
      // an HTTP/1.1 client's connections get their codec when they are made, TLS or not; were one without it, the
      // request timeout would still bound its requests
      if (channel.pipeline().get(NettyPipeline.HttpCodec) != null) {
        channel.pipeline().addAfter(NettyPipeline.HttpCodec, NAME, new ResponseTimeout(timeout));
      }
    });
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.context = ctx;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    this.awaiting = false;
    if (this.timer != null) {
      this.timer.cancel(false);
      this.timer = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    handlerRemoved(ctx);
    ctx.fireChannelInactive();
  }

  /** The end of a request (a {@code FullHttpRequest} is one too) starts the wait for its response. */
  @Override
  public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
    if (message instanceof LastHttpContent) {
      this.awaiting = true;
      this.lastRead = ctx.executor().ticker().nanoTime();
      if (this.timer == null) {
        this.timer = ctx.executor().schedule(this.check, this.timeoutNanos, TimeUnit.NANOSECONDS);
      }
    }
    ctx.write(message, promise);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    if (this.awaiting) {
      this.lastRead = ctx.executor().ticker().nanoTime();
      if (message instanceof LastHttpContent) {
        this.awaiting = false;
      }
    }
    ctx.fireChannelRead(message);
  }

  private void check() {
    this.timer = null;
    ChannelHandlerContext ctx = this.context;
    if (!this.awaiting || ctx == null || !ctx.channel().isOpen()) {
      return;
    }
    long silent = ctx.executor().ticker().nanoTime() - this.lastRead;
    if (silent < this.timeoutNanos) {
      this.timer = ctx.executor().schedule(this.check, this.timeoutNanos - silent, TimeUnit.NANOSECONDS);
      return;
    }
    this.awaiting = false;
    ctx.fireExceptionCaught(ReadTimeoutException.INSTANCE);
    ctx.close();
  }
}
