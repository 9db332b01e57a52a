package io.icebergscan.planning.model;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Credentials the catalog vended for reading files under a location prefix.
 *
 * @param prefix the storage location prefix the credential applies to
 * @param config the credential's settings; {@link #toString()} never shows their values
 */
public record StorageCredential(String prefix, Map<String, String> config) {

  public StorageCredential {
    Objects.requireNonNull(prefix, "prefix");
    config = Map.copyOf(config);
  }

  @Override
  public String toString() {
    return "StorageCredential[prefix=" + this.prefix + ", config keys=" + new TreeMap<>(this.config).keySet() + "]";
  }
}
