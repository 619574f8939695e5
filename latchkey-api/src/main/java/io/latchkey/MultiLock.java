package io.latchkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.stream.Collectors;

/**
 * {@link Locks#multiLock}: all parts or none, taken in ascending name order by {@link OrderedAcquisition}.
 * Thread-owned holds are the parts' own thread-owned holds (so reentrancy and hold counts are theirs); leases are
 * {@link MultiLockLease}s over one lease per part.
 */
final class MultiLock implements DistributedLock {

    private final List<DistributedLock> parts;
    private final String name;

    MultiLock(List<DistributedLock> parts) {
        List<DistributedLock> sorted = new ArrayList<>(parts);
        sorted.sort(Comparator.comparing(DistributedLock::name));
        this.parts = List.copyOf(sorted);
        this.name = this.parts.stream().map(DistributedLock::name)
                .collect(Collectors.joining(", ", "multiLock[", "]"));
    }

    @Override
    public String name() {
        return name;
    }

    // ---- thread-owned ----

    @Override
    public void lock() {
        takeOwned(CombinatorArgs.FOREVER, null, false);
    }

    @Override
    public void lock(Duration leaseTime) {
        CombinatorArgs.checkLease(leaseTime);
        takeOwned(CombinatorArgs.FOREVER, leaseTime, false);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        takeOwnedInterruptibly(CombinatorArgs.FOREVER, null);
    }

    @Override
    public boolean tryLock() {
        return takeOwned(0, null, false);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return takeOwnedInterruptibly(Math.max(0, unit.toNanos(time)), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        return takeOwnedInterruptibly(wait, leaseTime);
    }

    private boolean takeOwnedInterruptibly(long waitNanos, Duration leaseTime) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return OrderedAcquisition.takeAll(parts, new OwnedTaker(leaseTime, true), waitNanos) != null;
    }

    private boolean takeOwned(long waitNanos, Duration leaseTime, boolean interruptible) {
        OwnedTaker taker = new OwnedTaker(leaseTime, interruptible);
        try {
            return OrderedAcquisition.takeAll(parts, taker, waitNanos) != null;
        } catch (InterruptedException e) {
            throw new IllegalStateException("an uninterruptible acquire was interrupted", e);
        } finally {
            if (taker.interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Unlocks every part the current thread holds, in reverse order, even when one fails.
     *
     * @throws IllegalMonitorStateException if the current thread holds none of the parts
     * @throws LockLostException if a part had been lost (after the others were unlocked)
     */
    @Override
    public void unlock() {
        boolean holdsAny = false;
        for (DistributedLock part : parts) {
            holdsAny |= part.isHeldByCurrentThread();
        }
        if (!holdsAny) {
            throw new IllegalMonitorStateException(String.format(
                    "the current thread does not hold %s", name));
        }
        List<RuntimeException> failures = new ArrayList<>();
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).unlock();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (failures.isEmpty()) {
            return;
        }
        RuntimeException primary = failures.stream().filter(LockLostException.class::isInstance).findFirst()
                .<RuntimeException>map(lost -> new LockLostException(name, String.format(
                        "%s was lost: %s; every other part was unlocked", name, lost.getMessage())))
                .orElse(failures.get(0));
        for (RuntimeException f : failures) {
            if (f != primary) {
                primary.addSuppressed(f);
            }
        }
        throw primary;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(name + " does not support conditions");
    }

    /** Whether any part is locked by anyone (so that an acquire would have to wait). */
    @Override
    public boolean isLocked() {
        for (DistributedLock part : parts) {
            if (part.isLocked()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        for (DistributedLock part : parts) {
            if (!part.isHeldByCurrentThread()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int getHoldCount() {
        int min = Integer.MAX_VALUE;
        for (DistributedLock part : parts) {
            min = Math.min(min, part.getHoldCount());
        }
        return min;
    }

    @Override
    public OptionalLong fencingToken() {
        return isHeldByCurrentThread() ? parts.get(0).fencingToken() : OptionalLong.empty();
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
        if (failure != null) {
            throw failure;
        }
        return any;
    }

    // ---- lease-owned ----

    @Override
    public LockLease acquire() throws InterruptedException {
        return takeLeases(CombinatorArgs.FOREVER, null);
    }

    @Override
    public LockLease acquire(Duration leaseTime) throws InterruptedException {
        CombinatorArgs.checkLease(leaseTime);
        return takeLeases(CombinatorArgs.FOREVER, leaseTime);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime, null);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        return Optional.ofNullable(takeLeases(wait, leaseTime));
    }

    private LockLease takeLeases(long waitNanos, Duration leaseTime) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        List<LockLease> leases = OrderedAcquisition.takeAll(parts, new LeaseTaker(leaseTime), waitNanos);
        return leases == null ? null : compose(leases);
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync() {
        return CombinatorArgs.cancellableView(
                AsyncOrderedAcquisition.start(parts, null, CombinatorArgs.FOREVER, this::compose), Optional::get);
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        return AsyncOrderedAcquisition.start(parts, leaseTime, wait, this::compose);
    }

    private LockLease compose(List<LockLease> leases) {
        return new MultiLockLease(name, leases);
    }

    @Override
    public String toString() {
        return name;
    }

    /** Thread-owned holds: the parts' own {@code lock}/{@code tryLock}/{@code unlock}. */
    private static final class OwnedTaker implements OrderedAcquisition.PartTaker<Boolean> {
        private final Duration leaseTime;
        private final boolean interruptible;
        boolean interrupted;

        OwnedTaker(Duration leaseTime, boolean interruptible) {
            this.leaseTime = leaseTime;
            this.interruptible = interruptible;
        }

        @Override
        public Boolean take(DistributedLock part, long waitNanos) throws InterruptedException {
            if (waitNanos == CombinatorArgs.FOREVER) {
                if (leaseTime != null) {
                    part.lock(leaseTime);
                } else if (interruptible) {
                    part.lockInterruptibly();
                } else {
                    part.lock();
                }
                return Boolean.TRUE;
            }
            if (!interruptible && leaseTime == null && waitNanos == 0) {
                return part.tryLock() ? Boolean.TRUE : null;
            }
            while (true) {
                try {
                    return part.tryLock(Duration.ofNanos(waitNanos), leaseTime) ? Boolean.TRUE : null;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    // uninterruptible callers only probe (waitNanos == 0), so trying again does not extend a wait
                    interrupted = true;
                }
            }
        }

        @Override
        public void giveBack(DistributedLock part, Boolean hold) {
            part.unlock();
        }
    }

    /** Lease holds: one {@link LockLease} per part. */
    private static final class LeaseTaker implements OrderedAcquisition.PartTaker<LockLease> {
        private final Duration leaseTime;

        LeaseTaker(Duration leaseTime) {
            this.leaseTime = leaseTime;
        }

        @Override
        public LockLease take(DistributedLock part, long waitNanos) throws InterruptedException {
            if (waitNanos == CombinatorArgs.FOREVER) {
                return leaseTime == null ? part.acquire() : part.acquire(leaseTime);
            }
            return part.tryAcquire(Duration.ofNanos(waitNanos), leaseTime).orElse(null);
        }

        @Override
        public void giveBack(DistributedLock part, LockLease hold) {
            hold.release();
        }
    }
}
