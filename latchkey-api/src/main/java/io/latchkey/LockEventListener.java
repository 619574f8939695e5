package io.latchkey;

import java.time.Duration;

/**
 * Receives events for metrics (Micrometer, logs). Every method has an empty default, so an implementation
 * overrides only what it records.
 *
 * <p>Methods are called on Latchkey's own threads or on the caller's thread, right after the event; they must be
 * fast and must not block or throw (a thrown exception is logged and ignored).
 */
public interface LockEventListener {

    /** A listener that ignores every event. */
    LockEventListener NONE = new LockEventListener() { };

    /**
     * An owner acquired {@code lockName} after waiting {@code waited}.
     *
     * @param lockName the name of the lock (or other primitive)
     * @param waited how long the acquire waited, on the local monotonic clock; zero for an immediate acquire
     */
    default void acquired(String lockName, Duration waited) { }

    /**
     * An acquire of {@code lockName} gave up after its wait time.
     *
     * @param lockName the name of the lock
     * @param waited how long the acquire waited before it gave up
     */
    default void timedOut(String lockName, Duration waited) { }

    /**
     * A wait for {@code lockName} that {@linkplain #timedOut timed out} found it held by {@code holder}. Asked after
     * the time-out, asynchronously and only when this method is overridden (one remote query per timed-out wait that
     * waited at all; a single attempt that finds the lock busy asks nothing), so it follows {@link #timedOut} and may
     * come late or, if the backend does not answer or the lock was free by then, not at all.
     *
     * @param lockName the name of the lock
     * @param waited how long the acquire waited before it gave up
     * @param holder who held the lock when asked; a snapshot
     */
    default void timedOutHeldBy(String lockName, Duration waited, LockHolder holder) { }

    /**
     * An owner released {@code lockName} after holding it for {@code held}.
     *
     * @param lockName the name of the lock
     * @param held how long the hold lasted, from acquire to release, on the local monotonic clock
     */
    default void released(String lockName, Duration held) { }

    /**
     * A held lock was lost (renewal failed, lease ran out, session expired).
     *
     * @param lockName the name of the lock
     */
    default void lost(String lockName) { }

    /**
     * The watchdog renewed {@code leases} leases in one batch that took {@code took}.
     *
     * @param leases how many leases the batch renewed
     * @param took how long the batch's round trip to the backend took
     */
    default void renewed(int leases, Duration took) { }
}
