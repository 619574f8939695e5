package io.latchkey.jdbc;

import io.latchkey.LockException;

/**
 * Thrown by {@link FencingGuard} when a write carries a fencing token lower than one the resource has already
 * seen: the writer's lock was lost and someone else has held it since. Nothing was written.
 */
public class StaleTokenException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long token;

    public StaleTokenException(String resource, long token, String message) {
        super(message);
        this.resource = resource;
        this.token = token;
    }

    /** The protected resource. */
    public String resource() {
        return resource;
    }

    /** The refused token. */
    public long token() {
        return token;
    }
}
