package io.latchkey;

/**
 * Base class of the unchecked exceptions that Latchkey throws for conditions of the lock service itself
 * (as opposed to misuse, which throws {@link IllegalArgumentException} or {@link IllegalMonitorStateException}).
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
