package io.latchkey.spring;

import io.latchkey.LockException;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link Locked} method did not run because its lock was not acquired within its wait time (or the wait was
 * interrupted, then the cause is the {@link InterruptedException}).
 */
public class LockNotAcquiredException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final Duration waitTime;
    private final Duration waited;

    /**
     * @param lockName the evaluated lock name
     * @param waitTime how long the annotation allowed
     * @param waited how long the caller actually waited
     */
    public LockNotAcquiredException(String lockName, Duration waitTime, Duration waited, Throwable cause) {
        super(String.format("lock '%s' not acquired within %s (waited %d ms)%s", lockName, waitTime,
                waited.toMillis(), cause instanceof InterruptedException ? ": interrupted" : ""), cause);
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
        this.waited = Objects.requireNonNull(waited, "waited");
    }

    /** The lock's name as the expression evaluated it. */
    public String lockName() {
        return lockName;
    }

    /** The wait time the annotation allowed. */
    public Duration waitTime() {
        return waitTime;
    }

    /** How long the caller waited before giving up. */
    public Duration waited() {
        return waited;
    }
}
