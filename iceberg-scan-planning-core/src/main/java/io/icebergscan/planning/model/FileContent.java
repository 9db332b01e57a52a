package io.icebergscan.planning.model;

/** What a content file holds. */
public enum FileContent {
  DATA,
  POSITION_DELETES,
  EQUALITY_DELETES
}
