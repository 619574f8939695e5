package io.latchkey.core;

/**
 * The engine's clock for local waits and lease bookkeeping; tests substitute a manual one. Lock expiry itself is
 * always decided by the backend's clock.
 */
@FunctionalInterface
public interface TimeSource {

    /** {@link System#nanoTime()}. */
    TimeSource SYSTEM = System::nanoTime;

    /** {@return a monotonic time in nanoseconds, as {@link System#nanoTime()}: only differences mean anything} */
    long nanoTime();
}
