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

    private final String lockName;

    public LockLostException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    /** The name of the lock that was lost. */
    public String lockName() {
        return lockName;
    }
}
