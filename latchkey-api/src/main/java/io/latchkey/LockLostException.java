package io.latchkey;

/**
 * Thrown by {@code unlock()} or {@link LockLease#release()} when the lock was lost while it was held: the watchdog
 * could not renew it, its fixed lease ran out, the backend session expired, or another party force-unlocked it.
 *
 * <p>It extends {@link IllegalMonitorStateException} because, at the moment of the call, the caller does not hold
 * the lock it believes it holds; code that catches the JUC exception keeps working. Work done in the critical
 * section after the loss may have overlapped with another holder: protect such writes with
 * {@link LockLease#fencingToken() fencing tokens}.
 */
public class LockLostException extends IllegalMonitorStateException {
    private static final long serialVersionUID = 1L;

    /** The name of the lost lock, as the application gave it. */
    private final String lockName;

    /**
     * Creates an exception for the loss of {@code lockName}.
     *
     * @param lockName the name of the lock that was lost
     * @param message how the loss came about, for people
     */
    public LockLostException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    /** {@return the name of the lock that was lost} */
    public String lockName() {
        return lockName;
    }
}
