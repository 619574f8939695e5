package io.latchkey;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/** {@link Locks#redLock}: the RedLock algorithm over any {@link DistributedLock}s, see {@link RedLock}. */
final class QuorumLock implements RedLock {

    private final List<DistributedLock> parts;
    private final int quorum;
    private final String name;
    private final QuorumAcquisition acquisition;
    /** Thread-owned holds of this instance; a hold's count is touched only by its own thread. */
    private final ConcurrentHashMap<Thread, OwnedHold> owned = new ConcurrentHashMap<>();

    QuorumLock(List<DistributedLock> parts, Duration nodeTimeout) {
        this.parts = List.copyOf(parts);
        this.quorum = this.parts.size() / 2 + 1;
        String first = this.parts.get(0).name();
        boolean sameName = this.parts.stream().allMatch(p -> p.name().equals(first));
        this.name = sameName ? first : "redLock" + this.parts.stream().map(DistributedLock::name).toList();
        this.acquisition = new QuorumAcquisition(this.parts, quorum, name, nodeTimeout);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int quorum() {
        return quorum;
    }

    // ---- lease-owned ----

    @Override
    public RedLockLease acquire() throws InterruptedException {
        return acquisition.acquireBlocking(CombinatorArgs.FOREVER, null, true);
    }

    @Override
    public RedLockLease acquire(Duration leaseTime) throws InterruptedException {
        CombinatorArgs.checkLease(leaseTime);
        return acquisition.acquireBlocking(CombinatorArgs.FOREVER, leaseTime, true);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime, null);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        return Optional.ofNullable(acquisition.acquireBlocking(wait, leaseTime, true));
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync() {
        return CombinatorArgs.cancellableView(acquisition.acquireAsync(CombinatorArgs.FOREVER, null),
                lease -> lease.get());
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        Function<Optional<QuorumLease>, Optional<LockLease>> widen = lease -> lease.map(LockLease.class::cast);
        return CombinatorArgs.cancellableView(acquisition.acquireAsync(wait, leaseTime), widen);
    }

    // ---- thread-owned, on leases ----

    private static final class OwnedHold {
        final QuorumLease lease;
        int count = 1;

        OwnedHold(QuorumLease lease) {
            this.lease = lease;
        }
    }

    private boolean reenter() {
        OwnedHold hold = owned.get(Thread.currentThread());
        if (hold == null) {
            return false;
        }
        hold.count++;
        return true;
    }

    private boolean own(QuorumLease lease) {
        if (lease == null) {
            return false;
        }
        owned.put(Thread.currentThread(), new OwnedHold(lease));
        return true;
    }

    @Override
    public void lock() {
        if (!reenter()) {
            uninterruptibly(CombinatorArgs.FOREVER, null);
        }
    }

    @Override
    public void lock(Duration leaseTime) {
        CombinatorArgs.checkLease(leaseTime);
        if (!reenter()) {
            uninterruptibly(CombinatorArgs.FOREVER, leaseTime);
        }
    }

    private boolean uninterruptibly(long waitNanos, Duration leaseTime) {
        try {
            return own(acquisition.acquireBlocking(waitNanos, leaseTime, false));
        } catch (InterruptedException e) {
            throw new IllegalStateException("an uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (!reenter()) {
            own(acquisition.acquireBlocking(CombinatorArgs.FOREVER, null, true));
        }
    }

    @Override
    public boolean tryLock() {
        return reenter() || uninterruptibly(0, null);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return reenter() || own(acquisition.acquireBlocking(wait, leaseTime, true));
    }

    /**
     * Counts down the current thread's hold and releases the lease at the last unlock.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     * @throws LockLostException if the hold had been lost (the parts were released anyway)
     */
    @Override
    public void unlock() {
        Thread current = Thread.currentThread();
        OwnedHold hold = owned.get(current);
        if (hold == null) {
            throw new IllegalMonitorStateException(String.format(
                    "the current thread does not hold redLock '%s'", name));
        }
        if (--hold.count > 0) {
            return;
        }
        owned.remove(current);
        hold.lease.release();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("redLock '" + name + "' does not support conditions");
    }

    @Override
    public boolean isLocked() {
        int locked = 0;
        for (DistributedLock part : parts) {
            try {
                if (part.isLocked()) {
                    locked++;
                }
            } catch (LockException unreachable) {
                // an unreachable part cannot be counted as locked
            }
        }
        return locked >= quorum;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return owned.containsKey(Thread.currentThread());
    }

    @Override
    public int getHoldCount() {
        OwnedHold hold = owned.get(Thread.currentThread());
        return hold == null ? 0 : hold.count;
    }

    @Override
    public OptionalLong fencingToken() {
        OwnedHold hold = owned.get(Thread.currentThread());
        return hold == null ? OptionalLong.empty() : OptionalLong.of(hold.lease.fencingToken());
    }

    @Override
    public Duration validity() {
        OwnedHold hold = owned.get(Thread.currentThread());
        return hold == null ? Duration.ZERO : hold.lease.validity();
    }

    @Override
    public boolean forceUnlock() {
        boolean any = false;
        RuntimeException failure = null;
        for (DistributedLock part : parts) {
            try {
                any |= part.forceUnlock();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null && !any) {
            throw failure;
        }
        return any;
    }

    @Override
    public String toString() {
        return "RedLock{name='" + name + "', parts=" + parts.size() + ", quorum=" + quorum + "}";
    }
}
