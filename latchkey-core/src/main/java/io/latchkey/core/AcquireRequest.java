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
    /** 64 random bits: no two requests of one owner share them (see {@link #attemptId()}). */
    private final long attemptBits = java.util.concurrent.ThreadLocalRandom.current().nextLong();

    /**
     * Creates a request; the engine does, for each attempt it hands to a backend.
     *
     * @param name the validated lock name (the backend maps it to its key, path or row)
     * @param ownerId who will own the lock: {@code clientId:threadId} or {@code clientId:leaseId}
     * @param leaseMillis the time to live to set on the server: the fixed lease, or the watchdog timeout
     * @param watchdog whether the engine will renew the grant
     * @param deadlineNanos when to give up, on {@code time}'s clock; {@link #NO_DEADLINE} to wait forever; a value
     *        at or before now means a single attempt
     * @param time the clock of {@code deadlineNanos}
     * @throws NullPointerException if {@code name}, {@code ownerId} or {@code time} is null
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

    /** {@return the validated lock name, as the application gave it} The backend maps it to its key, path or row. */
    public String name() {
        return name;
    }

    /** {@return who will own the lock: {@code clientId:threadId} or {@code clientId:leaseId}} */
    public String ownerId() {
        return ownerId;
    }

    /**
     * {@return the time to live to set on the server, in milliseconds} It is the fixed lease, or the watchdog
     * timeout for a grant the engine will renew.
     */
    public long leaseMillis() {
        return leaseMillis;
    }

    /** {@return whether the engine will renew the grant (no lease time was given)} */
    public boolean watchdog() {
        return watchdog;
    }

    /**
     * {@return when to give up, on {@link #time()}'s clock in nanoseconds} {@link #NO_DEADLINE} to wait as long as
     * needed; a value at or before now means a single attempt.
     */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** {@return the clock of {@link #deadlineNanos()}} */
    public TimeSource time() {
        return time;
    }

    /** {@return the nanoseconds left until the deadline: never negative; {@link Long#MAX_VALUE} without one} */
    public long remainingNanos() {
        if (deadlineNanos == NO_DEADLINE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, deadlineNanos - time.nanoTime());
    }

    /** {@return whether the deadline has passed} A busy lock should then be reported as not acquired. */
    public boolean isExpired() {
        return deadlineNanos != NO_DEADLINE && deadlineNanos - time.nanoTime() <= 0;
    }

    /**
     * {@return a future that completes when the caller abandoned the request} That happens on an interrupt, a
     * cancelled future or the client closing. A backend that is waiting must then stop and complete its future
     * with {@code null}. If the lock is taken anyway (a race the backend cannot always avoid) it may complete with
     * the grant: the engine releases it.
     */
    public CompletableFuture<Void> cancelled() {
        return cancelled;
    }

    /**
     * {@return the id of this request's attempts at the server: 64 random bits in base 36, a new one per request}
     * A backend stores it with the hold an attempt makes, so that {@link RemoteLockOps#cleanUpAttempt} can remove
     * exactly what this request made when an attempt's answer never came, and never a later hold of the same owner
     * (a thread's owner id is the same for each of its acquires). Every attempt of one request carries the same id:
     * a request holds at most one grant, and the engine asks for a clean-up only once the request makes no further
     * attempt.
     */
    public String attemptId() {
        if (attemptBits >= 0) {
            return Long.toString(attemptBits, 36);
        }
        // Long.toUnsignedString(bits, 36) would take a BigInteger for half of all ids: the same digits, cheaper
        long quotient = Long.divideUnsigned(attemptBits, 36);
        return Long.toString(quotient, 36) + Character.forDigit((int) (attemptBits - quotient * 36), 36);
    }

    /** {@return whether the caller abandoned the request: whether {@link #cancelled()} is done} */
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
