package io.latchkey.micronaut;

import io.latchkey.LockException;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link Locked} method did not run because its lock was not acquired within its wait time, the wait was
 * interrupted (then the cause is the {@link InterruptedException}), or the application context was stopping.
 */
public class LockNotAcquiredException extends LockException {
    private static final long serialVersionUID = 1L;

    /** The lock's name as the {@link Locked#name()} template rendered it. */
    private final String lockName;
    /** The wait time the annotation allowed; negative for "as long as it takes". */
    private final Duration waitTime;
    /** How long the caller waited before giving up. */
    private final Duration waited;

    /**
     * Creates the exception; the message names the lock, the wait time and how long the caller waited.
     *
     * @param lockName the rendered lock name
     * @param waitTime how long the annotation allowed (negative: as long as it takes)
     * @param waited how long the caller actually waited
     * @param cause the {@link InterruptedException} if the wait was interrupted, else {@code null}
     * @throws NullPointerException if {@code lockName}, {@code waitTime} or {@code waited} is null
     */
    public LockNotAcquiredException(String lockName, Duration waitTime, Duration waited, Throwable cause) {
        this(String.format("lock '%s' not acquired within %s (waited %d ms)%s", lockName,
                waitTime.isNegative() ? "an unbounded wait" : waitTime, waited.toMillis(),
                cause instanceof InterruptedException ? ": interrupted" : ""), lockName, waitTime, waited, cause);
    }

    private LockNotAcquiredException(String message, String lockName, Duration waitTime, Duration waited,
                                     Throwable cause) {
        super(message, cause);
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
        this.waited = Objects.requireNonNull(waited, "waited");
    }

    /** The call came after the application context began to stop: nothing new is locked then. */
    static LockNotAcquiredException shuttingDown(String lockName, Duration waitTime) {
        return new LockNotAcquiredException(String.format("lock '%s' not acquired: the application context is "
                + "stopping and takes no new @Locked work", lockName), lockName, waitTime, Duration.ZERO, null);
    }

    /** {@return the lock's name as the template rendered it} */
    public String lockName() {
        return lockName;
    }

    /** {@return the wait time the annotation allowed; negative when it allowed an unbounded wait} */
    public Duration waitTime() {
        return waitTime;
    }

    /** {@return how long the caller waited before giving up} */
    public Duration waited() {
        return waited;
    }
}
