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
     * A held lock was lost (renewal failed, lease ran out, session expired). Called through
     * {@link #lost(String, String)}, whose default calls this.
     *
     * @param lockName the name of the lock
     */
    default void lost(String lockName) { }

    /**
     * A held lock (or a semaphore's permit) was lost, for {@code reason}; what the engine calls. The default calls
     * {@link #lost(String)}.
     *
     * @param lockName the name of the lock
     * @param reason why, as the holder's log line says it (such as "renewal refused: the key is gone")
     */
    default void lost(String lockName, String reason) {
        lost(lockName);
    }

    /**
     * An acquire of lock {@code lockName} that asks the backend starts (a re-entry of the caller's own hold does
     * not): called on the thread that called {@code lock}, {@code tryLock}, {@code acquire} or an asynchronous form,
     * before the first attempt, so that a listener can read that thread's context (a tracing span, say). The
     * {@link AcquireWait} it returns is told once how this acquire ended, on whichever thread ended it, as the
     * acquire's result is settled (which may be just after a caller blocked in {@code lock} has resumed). The default
     * returns {@code null}: nothing to tell.
     *
     * @param lockName the name of the lock
     * @return what to tell of this acquire's end, or {@code null}
     */
    default AcquireWait waitStarted(String lockName) {
        return null;
    }

    /**
     * The listener for one new client of the {@code backend} backend: the client sends its events to what this
     * returns, so that a listener shared by several clients can tell their backends apart. Called once, when the
     * client is created. The default returns this listener.
     *
     * @param backend the backend's name: {@code "redis"}, {@code "zookeeper"}, {@code "etcd"}, {@code "jdbc"},
     *        {@code "jdbc-advisory"}, {@code "file"} or {@code "mem"}
     * @return the listener for that client; {@code null} means this one
     */
    default LockEventListener forBackend(String backend) {
        return this;
    }

    /**
     * The watchdog renewed {@code leases} leases in one batch that took {@code took}.
     *
     * @param leases how many leases the batch renewed
     * @param took how long the batch's round trip to the backend took
     */
    default void renewed(int leases, Duration took) { }

    /**
     * One acquire, from {@link LockEventListener#waitStarted(String)}: told once how it ended, after the listener's
     * {@link LockEventListener#acquired acquired} or {@link LockEventListener#timedOut timedOut} event. Every
     * method has an empty default; they must be fast and must not block or throw.
     */
    interface AcquireWait {

        /**
         * The acquire was granted.
         *
         * @param fencingToken the hold's fencing token
         * @param waited how long it waited, on the local monotonic clock
         */
        default void acquired(long fencingToken, Duration waited) { }

        /**
         * The acquire gave up after its wait time (a single look found the lock busy).
         *
         * @param waited how long it waited
         */
        default void timedOut(Duration waited) { }

        /**
         * The acquire ended without a grant for another reason: the backend failed or did not answer in time, the
         * client closed, or the caller was interrupted or cancelled it (then {@code cause} is a
         * {@link java.util.concurrent.CancellationException}).
         *
         * @param cause why
         * @param waited how long it waited
         */
        default void failed(Throwable cause, Duration waited) { }
    }
}
