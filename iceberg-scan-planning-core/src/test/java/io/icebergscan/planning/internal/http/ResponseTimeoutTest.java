package io.icebergscan.planning.internal.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.ReadTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.HttpClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The per-connection response timeout on a channel whose clock the test moves: only the silence between the end of a
 * request and the end of its response counts, every read restarts it, and time idle between requests never does.
 */
class ResponseTimeoutTest {

  private static final long TIMEOUT_MILLIS = 1_000;

  private final EmbeddedChannel channel = new EmbeddedChannel(new ResponseTimeout(Duration.ofMillis(TIMEOUT_MILLIS)));

  @BeforeEach
  void stopTheClock() {
    // the channel's clock moves only when the test moves it
    this.channel.freezeTime();
  }

  @AfterEach
  void close() {
    this.channel.finishAndReleaseAll();
  }

  @Test
  void aSilenceOfTheTimeoutAfterARequestFailsItsExchangeAndClosesTheConnection() {
    this.channel.writeOutbound(request());
    pass(TIMEOUT_MILLIS - 1);
    assertStillOpen();

    pass(1);

    assertTimedOut();
  }

  @Test
  void theWaitStartsAtTheEndOfTheRequestNotAtItsHeaders() {
    this.channel.writeOutbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/tasks"));
    pass(TIMEOUT_MILLIS * 5);
    this.channel.writeOutbound(new DefaultLastHttpContent());
    pass(TIMEOUT_MILLIS - 1);

    assertStillOpen();
  }

  @Test
  void eachPartOfTheResponseRestartsTheWait() {
    this.channel.writeOutbound(request());
    pass(TIMEOUT_MILLIS * 3 / 4);
    this.channel.writeInbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
    pass(TIMEOUT_MILLIS * 3 / 4);
    this.channel.writeInbound(new DefaultHttpContent(this.channel.alloc().buffer().writeByte('{')));
    pass(TIMEOUT_MILLIS * 3 / 4);
    // no silence was as long as the timeout
    assertStillOpen();

    pass(TIMEOUT_MILLIS / 4);

    assertTimedOut();
  }

  @Test
  void aConnectionIdleInThePoolBetweenRequestsIsNeverTimedOut() {
    this.channel.writeOutbound(request());
    this.channel.writeInbound(response());
    pass(TIMEOUT_MILLIS * 10);
    assertStillOpen();

    // the next request on the kept-alive connection gets the whole timeout again
    this.channel.writeOutbound(request());
    pass(TIMEOUT_MILLIS - 1);
    this.channel.writeInbound(response());
    pass(TIMEOUT_MILLIS * 10);

    assertStillOpen();
  }

  @Test
  void aResponseEndingInItsOwnLastContentEndsTheWait() {
    this.channel.writeOutbound(request());
    this.channel.writeInbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
    this.channel.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
    pass(TIMEOUT_MILLIS * 10);

    assertStillOpen();
  }

  /**
   * A connection gone (the event the handler sees when its channel closes) cancels the timer at once, rather than
   * leaving it to hold the channel until it fires a timeout later. Fired by hand: closing an EmbeddedChannel
   * cancels every task of its loop, which would hide a timer left behind.
   */
  @Test
  void aConnectionGoneKeepsNoTimer() {
    this.channel.writeOutbound(request());
    assertThat(this.channel.runScheduledPendingTasks()).as("armed by the request").isPositive();

    this.channel.pipeline().fireChannelInactive();

    assertThat(this.channel.runScheduledPendingTasks()).as("nothing left scheduled").isEqualTo(-1);
    this.channel.checkException();
  }

  @Test
  void anHttp11ClientGetsItOnEachConnectionInsteadOfReactorNettysPerRequestHandler() {
    HttpClient plain = HttpClient.create();
    HttpClient client = ResponseTimeout.on(plain, Duration.ofSeconds(7));

    assertThat(client.configuration().responseTimeout()).isNull();
    assertThat(client.configuration().doOnChannelInit()).isNotSameAs(plain.configuration().doOnChannelInit());
  }

  @Test
  void aClientOfOtherProtocolsGetsReactorNettysResponseTimeout() {
    HttpClient client = ResponseTimeout.on(HttpClient.create().protocol(HttpProtocol.H2C, HttpProtocol.HTTP11),
        Duration.ofSeconds(7));

    assertThat(client.configuration().responseTimeout()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void aResponseTimeoutTheClientWasGivenIsKept() {
    HttpClient given = HttpClient.create().responseTimeout(Duration.ofSeconds(3));
    HttpClient client = ResponseTimeout.on(given, Duration.ofSeconds(7));

    assertThat(client).isSameAs(given);
  }

  private void assertStillOpen() {
    assertThat(this.channel.isOpen()).isTrue();
    this.channel.checkException();
  }

  private void assertTimedOut() {
    assertThatThrownBy(this.channel::checkException).isSameAs(ReadTimeoutException.INSTANCE);
    assertThat(this.channel.isOpen()).isFalse();
  }

  private void pass(long millis) {
    this.channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    this.channel.runScheduledPendingTasks();
  }

  private static DefaultFullHttpRequest request() {
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/tasks");
  }

  private static DefaultFullHttpResponse response() {
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
  }
}
