package io.icebergscan.planning.model;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * Credentials the catalog vended for reading files under a location prefix.
 *
 * @param prefix the storage location prefix the credential applies to
 * @param config the credential's settings; {@link #toString()} never shows their values
 */
// Serializable: a plan's FileIO carries its credentials to an engine's executors
public record StorageCredential(String prefix, Map<String, String> config) implements Serializable {

  public StorageCredential {
    Objects.requireNonNull(prefix, "prefix");
    config = Map.copyOf(config);
  }

  /**
   * The credential for a file location: the one with the longest matching prefix, as the spec says.
   *
   * @return the credential, or {@code null} when none applies
   */
  public static @Nullable StorageCredential forLocation(List<StorageCredential> credentials, String location) {
    StorageCredential best = null;
    for (StorageCredential credential : credentials) {
      if (location.startsWith(credential.prefix())
          && (best == null || credential.prefix().length() > best.prefix().length())) {
        best = credential;
      }
    }
    return best;
  }

  @Override
  public String toString() {
    return "StorageCredential[prefix=" + this.prefix + ", config keys=" + new TreeMap<>(this.config).keySet() + "]";
  }
}
