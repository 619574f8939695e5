package io.latchkey.jdbc;

import io.latchkey.LockException;
import java.time.Duration;

/**
 * Thrown when a {@link RowLock} could not lock its row: another transaction held it past the lock timeout, or at
 * once for the no-wait variant. Nothing was changed: the transaction was rolled back.
 */
public class RowLockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final transient Duration waited;

    public RowLockTimeoutException(String message, Duration waited, Throwable cause) {
        super(message, cause);
        this.waited = waited;
    }

    /** How long the caller waited for the row before giving up. */
    public Duration waited() {
        return waited;
    }
}
