package io.latchkey.core.internal;

import io.latchkey.DistributedLock;
import io.latchkey.LockHolder;
import io.latchkey.LockLease;
import io.latchkey.core.RemoteLockOps;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/**
 * A {@link DistributedLock} view: stateless apart from its name; all state lives in the engine's {@link NameState} for
 * (ops, name), so that two views of one name behave as one lock. Every blocking method is built on the
 * asynchronous path ({@link LockEngine#start}) and a wait for the waiter's future.
 */
final class EngineLock implements DistributedLock {

    enum Role { PLAIN, READ, WRITE }

    /** Whether a blocking acquire gives up on an interrupt ({@code lockInterruptibly}) or waits on and restores it. */
    private enum Interrupts { THROW, DEFER }

    private final LockEngine engine;
    /**
     * The ops and the name, which the handle reads from here rather than keeping fields of its own: the handle is
     * kept by the application for every lock it holds, 8 bytes each.
     */
    private final NameKey.Lock key;
    private final Role role;
    /** The other half of a read-write pair; set once by {@link EngineReadWriteLock} before publication. */
    EngineLock partner;

    EngineLock(LockEngine engine, RemoteLockOps ops, String name, Role role) {
        this.engine = engine;
        this.key = new NameKey.Lock(ops, name);
        engine.registerOps(ops);
        this.role = role;
    }

    @Override
    public String name() {
        return key.name();
    }

    private RemoteLockOps ops() {
        return key.ops();
    }

    // ---------------------------------------------------------------------------------------------- thread-owned

    @Override
    public void lock() {
        acquireUninterruptibly(engine.watchdogMillis, true);
    }

    @Override
    public void lock(Duration leaseTime) {
        acquireUninterruptibly(Checks.leaseMillis(leaseTime), false);
    }

    private void acquireUninterruptibly(long leaseMillis, boolean watchdog) {
        try {
            acquireThread(-1, leaseMillis, watchdog, Interrupts.DEFER);
        } catch (InterruptedException e) {
            throw new AssertionError("uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireThread(-1, engine.watchdogMillis, true, Interrupts.THROW);
    }

    @Override
    public boolean tryLock() {
        try {
            return acquireThread(0, engine.watchdogMillis, true, Interrupts.DEFER);
        } catch (InterruptedException e) {
            throw new AssertionError("uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquireThread(Checks.waitNanos(time, unit), engine.watchdogMillis, true, Interrupts.THROW);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long waitNanos = Checks.waitNanos(waitTime);
        if (leaseTime == null) {
            return acquireThread(waitNanos, engine.watchdogMillis, true, Interrupts.THROW);
        }
        return acquireThread(waitNanos, Checks.leaseMillis(leaseTime), false, Interrupts.THROW);
    }

    /** @param waitNanos negative: as long as needed; zero: a single attempt */
    private boolean acquireThread(long waitNanos, long leaseMillis, boolean watchdog, Interrupts interrupts)
            throws InterruptedException {
        engine.checkOpen();
        if (interrupts == Interrupts.THROW && Thread.interrupted()) {
            throw new InterruptedException();
        }
        String owner = engine.threadOwner();
        Waiter.Ownership ownership = Waiter.Ownership.THREAD;
        if (role == Role.WRITE && partner.liveThreadHold(owner) != null && liveThreadHold(owner) == null) {
            throw new IllegalMonitorStateException(String.format(
                    "the current thread holds the read lock of '%s'; a read lock cannot be upgraded to the write "
                            + "lock (release the read lock first)", name()));
        }
        if (role == Role.READ) {
            // a downgrade: the backend grants it at once, so it must not queue behind our own waiting readers
            if (partner.liveThreadHold(owner) != null) {
                ownership = Waiter.Ownership.THREAD_DOWNGRADE;
            }
        }
        if (WaitStart.reenter(engine, key, owner) != null) {
            return true;
        }
        return awaitWaiter(WaitStart.lock(engine, key, owner, ownership, leaseMillis, watchdog, waitNanos),
                interrupts) != null;
    }

    /** Waits for {@code w}; interrupted, it gives up and releases a grant that raced it, so no lock stays held. */
    private Hold awaitWaiter(Waiter<Hold> w, Interrupts interrupts) throws InterruptedException {
        return CallerWaits.await(engine, w.future, name(), interrupts == Interrupts.THROW, () -> w.nameState.cancel(w),
                h -> h.nameState.release(h));
    }

    Hold liveThreadHold(String owner) {
        NameState nameState = engine.nameStates.get(key);
        return nameState == null ? null : nameState.liveThreadHold(owner);
    }

    @Override
    public void unlock() {
        String owner = engine.threadOwner();
        NameState nameState = engine.nameStates.get(key);
        NameHolds.UnlockOutcome r = nameState == null ? NameState.UnlockResult.NOT_HELD
                : nameState.unlockThread(owner);
        if (r == NameState.UnlockResult.STILL_HELD) {
            return;
        }
        if (r == NameState.UnlockResult.NOT_HELD) {
            throw new IllegalMonitorStateException(String.format(
                    "lock '%s' is not held by the current thread (%s)", name(), Thread.currentThread().getName()));
        }
        if (r instanceof NameState.LostUnlock lostUnlock) {
            Hold lost = lostUnlock.hold();
            engine.awaitQuietly(nameState.releaseLost(lost), "unlock", name());
            throw lost.lostException("unlock");
        }
        if (r instanceof Hold h) { // the only outcome left
            engine.awaitRemote(nameState.release(h), "unlock", name());
        }
    }

    @Override
    public boolean isLocked() {
        engine.checkOpen();
        return Boolean.TRUE.equals(engine.awaitRemote(LockEngine.callRemote(() -> ops().isLocked(name())), "isLocked", name()));
    }

    @Override
    public Optional<LockHolder> holder() {
        return engine.holder(ops(), name());
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return liveThreadHold(engine.threadOwner()) != null;
    }

    @Override
    public int getHoldCount() {
        Hold h = liveThreadHold(engine.threadOwner());
        return h == null ? 0 : h.count;
    }

    @Override
    public OptionalLong fencingToken() {
        Hold h = liveThreadHold(engine.threadOwner());
        return h == null ? OptionalLong.empty() : OptionalLong.of(h.grant.fencingToken());
    }

    @Override
    public boolean forceUnlock() {
        engine.checkOpen();
        return Boolean.TRUE.equals(engine.awaitRemote(LockEngine.callRemote(() -> ops().forceUnlock(name())), "forceUnlock", name()));
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks do not support conditions");
    }

    // ---------------------------------------------------------------------------------------------- leases

    @Override
    public LockLease acquire() throws InterruptedException {
        return acquireLease(-1, engine.watchdogMillis, true).orElseThrow();
    }

    @Override
    public LockLease acquire(Duration leaseTime) throws InterruptedException {
        return acquireLease(-1, Checks.leaseMillis(leaseTime), false).orElseThrow();
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime) throws InterruptedException {
        return acquireLease(Checks.waitNanos(waitTime), engine.watchdogMillis, true);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long waitNanos = Checks.waitNanos(waitTime);
        if (leaseTime == null) {
            return acquireLease(waitNanos, engine.watchdogMillis, true);
        }
        return acquireLease(waitNanos, Checks.leaseMillis(leaseTime), false);
    }

    private Optional<LockLease> acquireLease(long waitNanos, long leaseMillis, boolean watchdog)
            throws InterruptedException {
        engine.checkOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Waiter<Hold> w = WaitStart.lock(engine, key, engine.newLeaseOwner(), Waiter.Ownership.LEASE, leaseMillis,
                watchdog, waitNanos);
        Hold h = awaitWaiter(w, Interrupts.THROW);
        return h == null ? Optional.empty() : Optional.of((LockLease) h);
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync() {
        return acquireLeaseAsync(-1, engine.watchdogMillis, true, lease -> lease.orElse(null));
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long waitNanos = Checks.waitNanos(waitTime);
        if (leaseTime == null) {
            return acquireLeaseAsync(waitNanos, engine.watchdogMillis, true, Function.identity());
        }
        return acquireLeaseAsync(waitNanos, Checks.leaseMillis(leaseTime), false, Function.identity());
    }

    private <T> CompletableFuture<T> acquireLeaseAsync(long waitNanos, long leaseMillis, boolean watchdog,
                                                       Function<Optional<LockLease>, T> result) {
        engine.checkOpen();
        Waiter<Hold> w = WaitStart.lock(engine, key, engine.newLeaseOwner(), Waiter.Ownership.LEASE, leaseMillis,
                watchdog, waitNanos);
        // a grant that raced the caller's cancel is released: no lock may stay behind
        return CallerWaits.async(w.future, h -> result.apply(h == null ? Optional.empty() : Optional.of((LockLease) h)),
                () -> w.nameState.cancel(w), h -> h.nameState.release(h));
    }

    @Override
    public String toString() {
        return "DistributedLock{name='" + name() + "', backend=" + engine.backendName
                + (role == Role.PLAIN ? "" : ", " + role.name().toLowerCase(java.util.Locale.ROOT)) + "}";
    }
}
