package io.latchkey.integration;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The run of a {@code @Locked} method once its lock is decided, the same in every integration: the method runs with
 * its lease current ({@link CurrentLease}), then the lease is released. A nested {@code @Locked} call on a name this
 * thread already holds runs under that lease ({@link #reenter(LockLease, Body)}), without a second acquire (which
 * would wait for itself).
 *
 * <p>The method's own failure is what the caller sees: a release that fails after it rides along as a suppressed
 * exception. A lease found lost at release, after the method returned, is thrown with {@code failIfLost}; otherwise
 * the method's result is returned and the loss is handed to the integration, which logs it.
 */
public final class LockedCall {

    /**
     * The intercepted method.
     *
     * @param <X> what it throws
     */
    @FunctionalInterface
    public interface Body<X extends Throwable> {
        /**
         * {@return what the method returned}
         *
         * @throws X what the method threw
         */
        Object proceed() throws X;
    }

    /** Makes the integration's own exception for a {@code @Locked} wait that ended without the lock. */
    @FunctionalInterface
    public interface NotAcquired {
        /**
         * {@return the exception to throw}
         *
         * @param waited how long the call waited
         * @param interrupt the interrupt that ended the wait, or {@code null} if the wait time ran out
         */
        RuntimeException create(Duration waited, InterruptedException interrupt);
    }

    private LockedCall() {
    }

    /**
     * Waits at most {@code waitTime} for the lock, as {@code @Locked(waitTime = …)} does in every integration.
     *
     * @param lock the lock
     * @param waitTime the longest wait
     * @param leaseTime the lease; null for one the watchdog renews until release
     * @param rethrowInterrupt whether an interrupt is thrown as it is (the method declares
     *        {@link InterruptedException}); otherwise the interrupt flag is restored and {@code notAcquired} made
     * @param notAcquired the exception of a wait that ended without the lock
     * @return the lease
     * @throws InterruptedException only with {@code rethrowInterrupt}
     */
    public static LockLease tryAcquire(DistributedLock lock, Duration waitTime, Duration leaseTime,
                                       boolean rethrowInterrupt, NotAcquired notAcquired) throws InterruptedException {
        long start = System.nanoTime();
        Optional<LockLease> acquired;
        try {
            acquired = leaseTime == null ? lock.tryAcquire(waitTime) : lock.tryAcquire(waitTime, leaseTime);
        } catch (InterruptedException e) {
            if (rethrowInterrupt) {
                throw e;
            }
            Thread.currentThread().interrupt();
            throw notAcquired.create(Duration.ofNanos(System.nanoTime() - start), e);
        }
        if (acquired.isEmpty()) {
            throw notAcquired.create(Duration.ofNanos(System.nanoTime() - start), null);
        }
        return acquired.get();
    }

    /**
     * {@link #tryAcquire(DistributedLock, Duration, Duration, boolean, NotAcquired)} for a method that does not
     * declare {@link InterruptedException}: an interrupt restores the flag and ends in {@code notAcquired}.
     *
     * @param lock the lock
     * @param waitTime the longest wait
     * @param leaseTime the lease; null for one the watchdog renews until release
     * @param notAcquired the exception of a wait that ended without the lock
     * @return the lease
     */
    public static LockLease tryAcquire(DistributedLock lock, Duration waitTime, Duration leaseTime,
                                       NotAcquired notAcquired) {
        try {
            return tryAcquire(lock, waitTime, leaseTime, false, notAcquired);
        } catch (InterruptedException e) {
            throw new AssertionError("an interrupt is not rethrown here", e);
        }
    }

    /**
     * Runs {@code body} under {@code held}, the lease an outer {@code @Locked} call of this thread holds on the same
     * name; releases nothing.
     *
     * @param held what {@link CurrentLease#heldByLocked(String)} returned
     * @param body the method
     * @param <X> what it throws
     * @return what it returned
     * @throws X what it threw
     */
    public static <X extends Throwable> Object reenter(LockLease held, Body<X> body) throws X {
        LockLease previous = CurrentLease.enter(held);
        try {
            return body.proceed();
        } finally {
            CurrentLease.exit(previous);
        }
    }

    /**
     * Waits as long as it takes, like {@code Lock.lock()}: an interrupt does not end the wait, it is restored once
     * the lock is held.
     *
     * @param lock the lock
     * @param leaseTime the lease; null for one the watchdog renews until release
     * @return the lease
     */
    public static LockLease acquireUninterruptibly(DistributedLock lock, Duration leaseTime) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return leaseTime == null ? lock.acquire() : lock.acquire(leaseTime);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs {@code body} holding {@code lease}, then releases it.
     *
     * @param lease the lease acquired for this call
     * @param failIfLost whether a lease found lost at release fails the call
     * @param lostAnyway told of a lease found lost at release without {@code failIfLost}: the result is returned
     * @param body the method
     * @param <X> what it throws
     * @return what it returned
     * @throws X what it threw (a failed release suppressed in it)
     * @throws LockLostException with {@code failIfLost}, if the lease was lost while the method ran
     */
    public static <X extends Throwable> Object run(LockLease lease, boolean failIfLost,
                                                   Consumer<LockLostException> lostAnyway, Body<X> body) throws X {
        Object result;
        LockLease previous = CurrentLease.enterLocked(lease);
        try {
            result = body.proceed();
        } catch (Throwable t) {
            CurrentLease.exitLocked(lease, previous);
            try {
                lease.release();
            } catch (RuntimeException releaseFailure) {
                // the method's own failure is what the caller must see; the lost or unreachable lock rides along
                t.addSuppressed(releaseFailure);
            }
            throw t;
        }
        CurrentLease.exitLocked(lease, previous);
        try {
            lease.release();
        } catch (LockLostException lost) {
            if (failIfLost) {
                throw lost;
            }
            lostAnyway.accept(lost);
        }
        return result;
    }
}
