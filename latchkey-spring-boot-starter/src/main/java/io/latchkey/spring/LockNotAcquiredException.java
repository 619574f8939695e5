package io.latchkey.spring;

import io.latchkey.LockException;
import io.latchkey.LockHolder;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Locked} method did not run because its lock was not acquired within its wait time (or the wait was
 * interrupted, then the cause is the {@link InterruptedException}).
 */
public class LockNotAcquiredException extends LockException {
    private static final long serialVersionUID = 1L;

    /** The lock's name as the {@link Locked#name()} expression evaluated it. */
    private final String lockName;
    /** The wait time the annotation allowed. */
    private final Duration waitTime;
    /** How long the caller waited before giving up. */
    private final Duration waited;
    /** Who held the lock when the wait ran out, if known. */
    private final transient LockHolder holder;

    /**
     * Creates the exception; the message names the lock, the wait time and how long the caller waited.
     *
     * @param lockName the evaluated lock name
     * @param waitTime how long the annotation allowed
     * @param waited how long the caller actually waited
     * @param cause the {@link InterruptedException} if the wait was interrupted, else {@code null}
     * @throws NullPointerException if {@code lockName}, {@code waitTime} or {@code waited} is null
     */
    public LockNotAcquiredException(String lockName, Duration waitTime, Duration waited, Throwable cause) {
        this(lockName, waitTime, waited, cause, null);
    }

    /**
     * Creates the exception; the message names the lock, the wait time, how long the caller waited and, when known,
     * who held the lock, such as {@code lock 'order:42' not acquired within PT5S (waited 5001 ms): held by
     * billing-7:4242 since 2026-01-01T12:00:01Z, token 17, lease left 21 s}.
     *
     * @param lockName the evaluated lock name
     * @param waitTime how long the annotation allowed
     * @param waited how long the caller actually waited
     * @param cause the {@link InterruptedException} if the wait was interrupted, else {@code null}
     * @param holder who held the lock when the wait ran out, or {@code null} if not known
     * @throws NullPointerException if {@code lockName}, {@code waitTime} or {@code waited} is null
     */
    public LockNotAcquiredException(String lockName, Duration waitTime, Duration waited, Throwable cause,
                                    LockHolder holder) {
        super(String.format("lock '%s' not acquired within %s (waited %d ms)%s%s", lockName, waitTime,
                waited.toMillis(), cause instanceof InterruptedException ? ": interrupted" : "",
                holder != null ? ": held by " + holder : ""), cause);
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
        this.waited = Objects.requireNonNull(waited, "waited");
        this.holder = holder;
    }

    /**
     * {@return who held the lock when the wait ran out, if it was known} A snapshot taken right after the wait; empty
     * if the lock was free by then, the backend cannot tell, or the wait was interrupted.
     */
    public Optional<LockHolder> holder() {
        return Optional.ofNullable(holder);
    }

    /** {@return the lock's name as the expression evaluated it} */
    public String lockName() {
        return lockName;
    }

    /** {@return the wait time the annotation allowed} */
    public Duration waitTime() {
        return waitTime;
    }

    /** {@return how long the caller waited before giving up} */
    public Duration waited() {
        return waited;
    }
}
