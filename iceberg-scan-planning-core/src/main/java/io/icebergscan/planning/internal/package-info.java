/**
 * Internal, with no compatibility promise: what every layer shares. {@code Redaction} masks credentials in URIs
 * the one way, for messages, health details, {@code toString}s and the actuator's sanitizer (the
 * auto-configuration's use of it is the one use outside the core, pinned by {@code ModuleArchitectureTests}).
 */
@NullMarked
package io.icebergscan.planning.internal;

import org.jspecify.annotations.NullMarked;
