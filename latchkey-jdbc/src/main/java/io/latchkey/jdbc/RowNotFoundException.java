package io.latchkey.jdbc;

import io.latchkey.LockException;

/** Thrown when the row a {@link RowLock} or {@link VersionCas} should work on does not exist. */
public class RowNotFoundException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the detail message, naming the table, the key column and the key
     */
    public RowNotFoundException(String message) {
        super(message);
    }
}
