package io.icebergscan.planning.observation;

import io.icebergscan.planning.ScanPlanner;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations a {@link ScanPlanner} reports: one per plan, and one per plan-task fetch as its child. The
 * HTTP client's own {@code http.client.requests} observations of a plan are children of these: a fetch's request
 * (and its retries) of the fetch, the plan's submission and polls of the plan. A meter observation handler turns
 * each into a timer of the same name, and a long task timer {@code <name>.active}.
 */
public enum ScanPlanningObservationDocumentation implements ObservationDocumentation {

  /** A whole plan: discovery, submission, polling and the plan-task walk. */
  PLAN {
    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
      return DefaultScanPlanningObservationConvention.class;
    }

    @Override
    public Observation.Event[] getEvents() {
      return Events.values();
    }
  },

  /** One plan-task fetch ({@code POST …/tasks}), its retries included, up to the parsed answer. */
  PLAN_TASK_FETCH {
    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
      return DefaultPlanTaskFetchObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] { LowCardinalityKeyNames.OUTCOME, LowCardinalityKeyNames.EXCEPTION };
    }
  };

  /** A plan's keys; a fetch has all but {@code restricted} and {@code identity}. */
  @Override
  public KeyName[] getLowCardinalityKeyNames() {
    return LowCardinalityKeyNames.values();
  }

  @Override
  public KeyName[] getHighCardinalityKeyNames() {
    return HighCardinalityKeyNames.values();
  }

  /** Keys of bounded value sets: meters are tagged with these. */
  public enum LowCardinalityKeyNames implements KeyName {

    /** How it ended: {@code SUCCESS}, {@code FAILURE} or {@code CANCELLED} ({@link Outcome}). */
    OUTCOME {
      @Override
      public String asString() {
        return "outcome";
      }
    },

    /** The failure's simple class name, or {@code none}. */
    EXCEPTION {
      @Override
      public String asString() {
        return "exception";
      }
    },

    /**
     * On a plan: {@code true} when it is for a read under the catalog's read restrictions (row filters and column
     * masks), {@code false} otherwise. Never what they are.
     */
    RESTRICTED {
      @Override
      public String asString() {
        return "restricted";
      }
    },

    /**
     * On a plan: {@code caller} when it runs as a caller ({@code ScanPlanner#as}), {@code service} when it runs as
     * the planner's own identity. Never who the caller is.
     */
    IDENTITY {
      @Override
      public String asString() {
        return "identity";
      }
    }
  }

  /** What can happen during a plan. */
  public enum Events implements Observation.Event {

    /**
     * The plan started over after the catalog forgot it or one of its handles: a span event, and the counter
     * {@code iceberg.scan.planning.replans} for a meter handler.
     */
    REPLANNED {
      @Override
      public String getName() {
        return "replans";
      }

      @Override
      public String getContextualName() {
        return "replanned";
      }
    }
  }

  /** Keys of unbounded value sets: on spans only, never on meters. */
  public enum HighCardinalityKeyNames implements KeyName {

    /** The planned table, as {@code namespace.table}. */
    TABLE {
      @Override
      public String asString() {
        return "iceberg.table";
      }
    }
  }
}
