package io.icebergscan.planning.internal.http;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.UUID;

/** RFC 9562 version 7 UUIDs (Unix-time ordered), as the REST spec asks for {@code Idempotency-Key}. */
public final class UuidV7 {

  /**
   * A DRBG seeded here, once: its output is computed, not read. The platform default ({@code NativePRNG}) reads
   * {@code /dev/urandom} for every key, a blocking call on the Netty event loops that start fetches.
   */
  private static final SecureRandom RANDOM = seeded();

  private UuidV7() {
  }

  private static SecureRandom seeded() {
    try {
      SecureRandom random = SecureRandom.getInstance("DRBG");
      random.nextBytes(new byte[1]); // seeds it now, while the class is initialised off the event loops
      return random;
    }
    catch (NoSuchAlgorithmException absent) {
      throw new IllegalStateException("this JVM has no DRBG SecureRandom", absent);
    }
  }

  /** Initialises the class, and so seeds its generator, on the calling thread: one that may block. */
  static void seed() {
    // the static initialiser did the work
  }

  public static UUID next() {
    byte[] random = new byte[10];
    RANDOM.nextBytes(random);
    long millis = System.currentTimeMillis();
    long msb = (millis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | ((random[0] & 0x0FL) << 8) | (random[1] & 0xFFL);
    long lsb = 0x8000_0000_0000_0000L | ((random[2] & 0x3FL) << 56);
    for (int i = 3; i < 10; i++) {
      lsb |= (random[i] & 0xFFL) << ((9 - i) * 8);
    }
    return new UUID(msb, lsb);
  }
}
