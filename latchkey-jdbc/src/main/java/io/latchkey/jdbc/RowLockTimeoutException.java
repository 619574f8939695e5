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

    /**
     * Creates the exception.
     *
     * @param message the detail message, naming the table, the key and the wait that ran out
     * @param waited how long the caller waited for the row
     * @param cause the cause, such as the driver's lock-timeout error; may be {@code null}
     */
    public RowLockTimeoutException(String message, Duration waited, Throwable cause) {
        super(message, cause);
        this.waited = waited;
    }

    /**
     * How long the caller waited for the row before giving up, measured from the start of the call (including
     * borrowing the connection). Not serialized: {@code null} after deserialization.
     *
     * @return the time waited
     */
    public Duration waited() {
        return waited;
    }
}
