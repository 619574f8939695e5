package io.latchkey.core;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One attempt by one owner to take an exclusive lock, as the engine hands it to a backend's
 * {@link RemoteLockOps#acquire}. The backend tries, and if the lock is busy waits (woken by pub/sub, watches or a
 * bounded poll) until it gets the lock, the deadline passes, or the request is {@linkplain #cancelled() cancelled}.
 *
 * <p>Immutable except for the cancellation signal.
 */
public final class AcquireRequest {

    /** {@link #deadlineNanos()} of a request that waits as long as needed. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    private final String name;
    private final String ownerId;
    private final long leaseMillis;
    private final boolean watchdog;
    private final long deadlineNanos;
    private final TimeSource time;
    private final CompletableFuture<Void> cancelled = new CompletableFuture<>();

    /**
     * @param name the validated lock name (the backend maps it to its key, path or row)
     * @param ownerId who will own the lock: {@code clientId:threadId} or {@code clientId:leaseId}
     * @param leaseMillis the time to live to set on the server: the fixed lease, or the watchdog timeout
     * @param watchdog whether the engine will renew the grant
     * @param deadlineNanos when to give up, on {@code time}'s clock; {@link #NO_DEADLINE} to wait forever; a value
     *        at or before now means a single attempt
     */
    public AcquireRequest(String name, String ownerId, long leaseMillis, boolean watchdog, long deadlineNanos,
                          TimeSource time) {
        this.name = Objects.requireNonNull(name, "name");
        this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
        this.leaseMillis = leaseMillis;
        this.watchdog = watchdog;
        this.deadlineNanos = deadlineNanos;
        this.time = Objects.requireNonNull(time, "time");
    }

    public String name() {
        return name;
    }

    public String ownerId() {
        return ownerId;
    }

    public long leaseMillis() {
        return leaseMillis;
    }

    public boolean watchdog() {
        return watchdog;
    }

    public long deadlineNanos() {
        return deadlineNanos;
    }

    public TimeSource time() {
        return time;
    }

    /** Nanoseconds left until the deadline (never negative; {@link Long#MAX_VALUE} without a deadline). */
    public long remainingNanos() {
        if (deadlineNanos == NO_DEADLINE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, deadlineNanos - time.nanoTime());
    }

    /** Whether the deadline has passed: a busy lock should then be reported as not acquired. */
    public boolean isExpired() {
        return deadlineNanos != NO_DEADLINE && deadlineNanos - time.nanoTime() <= 0;
    }

    /**
     * Completes when the caller abandoned the request (interrupt, cancelled future, client closing). A backend
     * that is waiting must then stop and complete its future with {@code null}. If the lock is taken anyway (a
     * race the backend cannot always avoid) it may complete with the grant: the engine releases it.
     */
    public CompletableFuture<Void> cancelled() {
        return cancelled;
    }

    public boolean isCancelled() {
        return cancelled.isDone();
    }

    /** Abandons the request; called by the engine only. */
    public void cancel() {
        cancelled.complete(null);
    }

    @Override
    public String toString() {
        return "AcquireRequest{name='" + name + "', owner=" + ownerId + ", leaseMillis=" + leaseMillis
                + ", watchdog=" + watchdog + "}";
    }
}
