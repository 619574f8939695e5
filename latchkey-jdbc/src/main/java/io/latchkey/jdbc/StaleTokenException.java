package io.latchkey.jdbc;

import io.latchkey.LockException;

/**
 * Thrown by {@link FencingGuard} when a write carries a fencing token lower than one the resource has already
 * seen: the writer's lock was lost and someone else has held it since. Nothing was written.
 */
public class StaleTokenException extends LockException {
    private static final long serialVersionUID = 1L;

    /** The protected resource whose write was refused. */
    private final String resource;
    /** The refused fencing token. */
    private final long token;

    /**
     * Creates the exception.
     *
     * @param resource the protected resource
     * @param token the refused fencing token
     * @param message the detail message
     */
    public StaleTokenException(String resource, long token, String message) {
        super(message);
        this.resource = resource;
        this.token = token;
    }

    /**
     * The protected resource.
     *
     * @return the resource name given to {@link FencingGuard#write}
     */
    public String resource() {
        return resource;
    }

    /**
     * The refused token.
     *
     * @return the fencing token, lower than the highest the resource has seen
     */
    public long token() {
        return token;
    }
}
