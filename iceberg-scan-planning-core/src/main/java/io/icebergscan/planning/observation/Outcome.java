package io.icebergscan.planning.observation;

/** How a plan, or one plan-task fetch, ended: the {@code outcome} of their observations. */
public enum Outcome {

  /** Completed: the plan returned, or the fetch was answered and parsed. */
  SUCCESS,

  /** Failed with the observation's error. */
  FAILURE,

  /** Ended early without a failure of its own: the caller went away, or a fetch was no longer needed. */
  CANCELLED
}
