package io.icebergscan.planning.internal.http;

import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * A plan's count of its requests, carried in the Reactor context of the calls it makes rather than through their
 * parameters: each attempt {@link CatalogClient} sends under it, retries included, is counted. Discovery (shared by
 * a planner's plans), the DELETE of an abandoned plan and the table calls belong to no plan's count.
 */
public final class PlanRequests {

  private static final Object KEY = PlanRequests.class;
  private static final Runnable NOT_COUNTED = () -> {
  };

  private PlanRequests() {
  }

  /** The context of a plan's call: {@code sending} runs as each of its attempts is sent. */
  public static Context counted(Context context, Runnable sending) {
    return context.put(KEY, sending);
  }

  static Runnable sending(ContextView context) {
    return context.hasKey(KEY) ? context.get(KEY) : NOT_COUNTED;
  }
}
