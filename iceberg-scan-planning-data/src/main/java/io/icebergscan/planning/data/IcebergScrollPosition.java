package io.icebergscan.planning.data;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.ScrollPosition;

/**
 * Where a {@link org.springframework.data.domain.Window} of an Iceberg table's rows ends: the snapshot the scroll
 * reads, and the last row handed out, by its data file and its position in that file. Neither depends on the order a
 * catalog plans tasks in, so the next window starts right after it whatever the next plan's order, with no row missing
 * or repeated; and pinning the snapshot keeps commits that land between windows out of the scroll.
 *
 * <p>{@link #toToken()} and {@link #fromToken(String)} carry a position through a URL.
 */
public final class IcebergScrollPosition implements ScrollPosition {

  private static final IcebergScrollPosition INITIAL = new IcebergScrollPosition(null, null, -1);
  private static final int TOKEN_VERSION = 1;

  private final @Nullable Long snapshotId;
  private final @Nullable String file;
  private final long position;

  private IcebergScrollPosition(@Nullable Long snapshotId, @Nullable String file, long position) {
    this.snapshotId = snapshotId;
    this.file = file;
    this.position = position;
  }

  /** The start of a scroll, which pins the table's current snapshot (or the one the query method pins). */
  public static IcebergScrollPosition initial() {
    return INITIAL;
  }

  /**
   * Right after row {@code position} of data file {@code file}, in snapshot {@code snapshotId}.
   *
   * @param file the data file's location, as the plan names it
   */
  public static IcebergScrollPosition after(long snapshotId, String file, long position) {
    Objects.requireNonNull(file, "file");
    if (position < 0) {
      throw new IllegalArgumentException("a row position is not negative, but was " + position);
    }
    return new IcebergScrollPosition(snapshotId, file, position);
  }

  /** The snapshot the scroll reads; empty for the {@linkplain #initial() initial} position, or a table with none. */
  public @Nullable Long snapshotId() {
    return this.snapshotId;
  }

  /** The data file of the last row handed out, {@code null} for the initial position. */
  public @Nullable String file() {
    return this.file;
  }

  /** The position in {@link #file()} of the last row handed out, -1 for the initial position. */
  public long position() {
    return this.position;
  }

  @Override
  public boolean isInitial() {
    return this.file == null;
  }

  /** The position as a URL-safe token, for a client to hand back: it names a data file, so it is not a secret. */
  public String toToken() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(TOKEN_VERSION);
      out.writeBoolean(this.file != null);
      if (this.file != null) {
        out.writeLong(Objects.requireNonNull(this.snapshotId));
        out.writeUTF(this.file);
        out.writeLong(this.position);
      }
    }
    catch (IOException impossible) {
      throw new UncheckedIOException(impossible);
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
  }

  /**
   * The position a {@link #toToken()} token stands for.
   *
   * @throws IllegalArgumentException when the token is not one
   */
  public static IcebergScrollPosition fromToken(String token) {
    Objects.requireNonNull(token, "token");
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Base64.getUrlDecoder().decode(token)))) {
      if (in.readByte() != TOKEN_VERSION) {
        throw new IllegalArgumentException("not a scroll position token of this version");
      }
      IcebergScrollPosition position = in.readBoolean() ? after(in.readLong(), in.readUTF(), in.readLong()) : INITIAL;
      if (in.available() > 0) {
        throw new IllegalArgumentException("a scroll position token has trailing bytes");
      }
      return position;
    }
    catch (IOException | IllegalArgumentException notAToken) {
      throw new IllegalArgumentException("'" + token + "' is not a scroll position token", notAToken);
    }
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof IcebergScrollPosition that && Objects.equals(this.snapshotId, that.snapshotId)
        && Objects.equals(this.file, that.file) && this.position == that.position;
  }

  @Override
  public int hashCode() {
    return Objects.hash(this.snapshotId, this.file, this.position);
  }

  @Override
  public String toString() {
    return isInitial() ? "IcebergScrollPosition[initial]"
        : "IcebergScrollPosition[snapshot " + this.snapshotId + ", after row " + this.position + " of " + this.file
            + "]";
  }
}
