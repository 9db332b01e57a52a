package io.icebergscan.planning;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;

/**
 * A table as the catalog's {@code GET …/tables/{table}} answered it (the spec's {@code LoadTableResult}), with its
 * metadata left as JSON text for Apache Iceberg's {@code TableMetadataParser.fromJson}.
 *
 * @param metadataLocation where the metadata file is, or {@code null} when the catalog gave none (a staged table)
 * @param metadataJson the answer's {@code metadata} object as JSON text: that object and nothing around it
 * @param config the table's own configuration, over the catalog's (a FileIO, a token, storage settings); may hold
 *     secrets, so {@link #toString()} shows only its keys
 * @param storageCredentials credentials the catalog vended for the table's files (empty unless asked for, and not
 *     always then)
 * @param readRestrictions the answer's {@code read-restrictions} object as JSON text, or {@code null} when it has
 *     none: the row filter and column masks the catalog requires a reader of the table to enforce on every read made
 *     with this answer. Their meaning needs the table's schema; the iceberg module's {@code IcebergScanPlanner}
 *     parses and enforces them. They hold to this answer's authentication scope only: another identity may be given
 *     other restrictions
 */
public record LoadedTable(@Nullable String metadataLocation, String metadataJson, Map<String, String> config,
    List<StorageCredential> storageCredentials, @Nullable String readRestrictions) {

  public LoadedTable {
    Objects.requireNonNull(metadataJson, "metadataJson");
    config = Map.copyOf(config);
    storageCredentials = List.copyOf(storageCredentials);
  }

  /** A table whose answer carried no {@code read-restrictions}. */
  public LoadedTable(@Nullable String metadataLocation, String metadataJson, Map<String, String> config,
      List<StorageCredential> storageCredentials) {
    this(metadataLocation, metadataJson, config, storageCredentials, null);
  }

  /**
   * The credential for a file location: the one with the longest matching prefix, as the spec says.
   *
   * @return the credential, or {@code null} when none applies
   */
  public @Nullable StorageCredential credentialFor(String location) {
    return StorageCredential.forLocation(this.storageCredentials, location);
  }

  /**
   * Without the config's values, which may be secrets, the metadata, which may be megabytes, nor the restrictions'
   * row filter, which messages must not quote.
   */
  @Override
  public String toString() {
    return "LoadedTable[metadataLocation=" + this.metadataLocation + ", metadataJson=" + this.metadataJson.length()
        + " chars, config keys=" + new TreeMap<>(this.config).keySet() + ", storageCredentials="
        + this.storageCredentials + (this.readRestrictions == null ? "" : ", with read-restrictions") + "]";
  }
}
