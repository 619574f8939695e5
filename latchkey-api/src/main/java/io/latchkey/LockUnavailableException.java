package io.latchkey;

/**
 * Thrown when the backend cannot be reached, or does not answer within
 * {@link ClientOptions#operationTimeout()}. The message names the server and the operation; the cause is the
 * last error the driver reported. Passwords never appear in the message.
 *
 * <p>When an acquire fails with this exception no lock is held on behalf of the caller: if the server did take
 * the lock before the connection failed, the client releases it (or it expires with its lease).
 */
public class LockUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception without a cause, for a backend that did not answer in time.
     *
     * @param message the server and the operation that failed; no passwords
     */
    public LockUnavailableException(String message) {
        super(message);
    }

    /**
     * Creates an exception with the driver's error that caused it.
     *
     * @param message the server and the operation that failed; no passwords
     * @param cause the last error the driver reported, or null if none is known
     */
    public LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
