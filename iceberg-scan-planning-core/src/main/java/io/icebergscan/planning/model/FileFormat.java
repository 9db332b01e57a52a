package io.icebergscan.planning.model;

/** The file format of a content file. */
public enum FileFormat {
  AVRO,
  ORC,
  PARQUET,
  PUFFIN
}
