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
 */
public record LoadedTable(@Nullable String metadataLocation, String metadataJson, Map<String, String> config,
    List<StorageCredential> storageCredentials) {

  public LoadedTable {
    Objects.requireNonNull(metadataJson, "metadataJson");
    config = Map.copyOf(config);
    storageCredentials = List.copyOf(storageCredentials);
  }

  /**
   * The credential for a file location: the one with the longest matching prefix, as the spec says.
   *
   * @return the credential, or {@code null} when none applies
   */
  public @Nullable StorageCredential credentialFor(String location) {
    return StorageCredential.forLocation(this.storageCredentials, location);
  }

  /** Without the config's values, which may be secrets, nor the metadata, which may be megabytes. */
  @Override
  public String toString() {
    return "LoadedTable[metadataLocation=" + this.metadataLocation + ", metadataJson=" + this.metadataJson.length()
        + " chars, config keys=" + new TreeMap<>(this.config).keySet() + ", storageCredentials="
        + this.storageCredentials + "]";
  }
}
