package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The two ways a holder loses its lock without releasing it, each seen from two clients: a fixed lease that runs
 * out, and a watchdog-renewed hold that another client force-unlocks. In both the holder must be told.
 */
final class LeaseChecks {

    static final String LEASE_EXPIRY = "lease expiry";
    static final String LOST_SIGNAL = "lost signal";

    private LeaseChecks() {
    }

    /**
     * {@code holder} takes {@code name} with a fixed lease and never releases it; {@code taker} must get it after
     * about the lease (not before: that would break mutual exclusion), and the holder's late release must throw
     * {@link LockLostException} without freeing the taker's hold.
     */
    static CheckResult leaseExpiry(DistributedLock holder, DistributedLock taker, Duration lease)
            throws InterruptedException {
        // The clock starts before the request: a lease may be counted from the request (etcd's fixed leases, a
        // client that ends the hold itself), never from before it, so a taker earlier than request + lease is a
        // violation whatever the grant's latency was.
        long granted = System.nanoTime();
        LockLease held = holder.acquire(lease);
        Duration patience = lease.multipliedBy(3).plusSeconds(10);
        Optional<LockLease> taken = taker.tryAcquire(patience);
        long took = System.nanoTime() - granted;
        if (taken.isEmpty()) {
            tryRelease(held);
            return CheckResult.fail(LEASE_EXPIRY, String.format("another client did not get the lock within %s of a "
                    + "%s lease", Durations.format(patience), Durations.format(lease)));
        }
        try {
            String evidence = String.format("taken by another client after %s (lease %s)", Durations.latency(took),
                    Durations.format(lease));
            // A little slack for the two clients' timers.
            long earliest = lease.toNanos() - Math.max(lease.toNanos() / 20, 20_000_000L);
            if (took < earliest) {
                tryRelease(held);
                return CheckResult.fail(LEASE_EXPIRY, evidence + ": before the lease was over");
            }
            long latest = lease.toNanos() + Math.max(lease.toNanos(), 2_000_000_000L);
            if (took > latest) {
                tryRelease(held);
                return CheckResult.fail(LEASE_EXPIRY, evidence + ": much later than the lease");
            }
            String told = tryRelease(held);
            if (told != null) {
                return CheckResult.fail(LEASE_EXPIRY, evidence + "; expired holder's release " + told);
            }
            if (!taker.isLocked()) {
                return CheckResult.fail(LEASE_EXPIRY, evidence + "; the expired holder's release freed the new "
                        + "holder's lock");
            }
            return CheckResult.pass(LEASE_EXPIRY, evidence + "; expired holder's release threw LockLostException");
        } finally {
            taken.get().release();
        }
    }

    /**
     * {@code holder} takes {@code name} with the watchdog; {@code breaker} force-unlocks it. The holder must run its
     * {@code onLost} listener (at the latest at its next renewal) and its release must throw
     * {@link LockLostException}.
     */
    static CheckResult lostSignal(DistributedLock holder, DistributedLock breaker, Duration watchdogTimeout)
            throws InterruptedException {
        LockLease held = holder.acquire();
        CountDownLatch lost = new CountDownLatch(1);
        AtomicLong lostAt = new AtomicLong();
        held.onLost(() -> {
            lostAt.set(System.nanoTime());
            lost.countDown();
        });
        long broken = System.nanoTime();
        boolean wasHeld;
        try {
            wasHeld = breaker.forceUnlock();
        } catch (RuntimeException e) {
            tryRelease(held);
            throw e;
        }
        if (!wasHeld) {
            tryRelease(held);
            return CheckResult.fail(LOST_SIGNAL, "another client's forceUnlock found the held lock not held");
        }
        // The holder learns at its next renewal (a third of the watchdog) at the latest; allow for a slow server.
        Duration patience = watchdogTimeout.multipliedBy(2).plusSeconds(2);
        if (!lost.await(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            String release = tryRelease(held);
            return CheckResult.fail(LOST_SIGNAL, String.format("onLost did not run within %s of the force-unlock "
                    + "(watchdog %s); release %s", Durations.format(patience), Durations.format(watchdogTimeout),
                    release == null ? "threw LockLostException" : release));
        }
        String evidence = String.format("onLost %s after another client's force-unlock (watchdog %s)",
                Durations.latency(lostAt.get() - broken), Durations.format(watchdogTimeout));
        if (held.isValid()) {
            tryRelease(held);
            return CheckResult.fail(LOST_SIGNAL, evidence + "; but the lease still says isValid()");
        }
        String release = tryRelease(held);
        if (release != null) {
            return CheckResult.fail(LOST_SIGNAL, evidence + "; release " + release);
        }
        return CheckResult.pass(LOST_SIGNAL, evidence + "; isValid false; release threw LockLostException");
    }

    /** Releases a lease that should be lost: null when it threw {@link LockLostException}, else what happened. */
    private static String tryRelease(LockLease lease) {
        try {
            lease.release();
            return "returned normally instead of throwing LockLostException";
        } catch (LockLostException expected) {
            return null;
        } catch (RuntimeException e) {
            return "threw " + e.getClass().getSimpleName() + " instead of LockLostException";
        }
    }
}
