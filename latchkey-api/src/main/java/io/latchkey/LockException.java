package io.latchkey;

/**
 * Base class of the unchecked exceptions that Latchkey throws for conditions of the lock service itself
 * (as opposed to misuse, which throws {@link IllegalArgumentException} or {@link IllegalMonitorStateException}).
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception without a cause.
     *
     * @param message what failed, for people; may be null
     */
    public LockException(String message) {
        super(message);
    }

    /**
     * Creates an exception with the error that caused it.
     *
     * @param message what failed, for people; may be null
     * @param cause the underlying error (usually the driver's), or null if none is known
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
