package io.latchkey;

/**
 * A {@link FencedStore} refused a write because the lease (or leadership) it carried is no longer the current hold
 * of the store's lock: it was released, it expired, it was lost, or another holder has taken the lock since. The
 * store changed nothing. The check and the refused write were one atomic step on the server, so no write of a stale
 * holder can slip in between.
 */
public class StaleLeaseException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long fencingToken;

    /**
     * Creates the exception.
     *
     * @param lockName the store's lock
     * @param fencingToken the token of the refused lease
     */
    public StaleLeaseException(String lockName, long fencingToken) {
        super(String.format("lease of lock '%s' with fencing token %d is no longer the lock's current hold "
                + "(released, expired, lost or superseded); nothing was written", lockName, fencingToken));
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    /** {@return the name of the lock whose hold was checked} */
    public String lockName() {
        return lockName;
    }

    /** {@return the fencing token of the refused lease} */
    public long fencingToken() {
        return fencingToken;
    }
}
