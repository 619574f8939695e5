package io.latchkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/** {@link Locks#redLock}: the RedLock algorithm over any {@link DistributedLock}s, see {@link RedLock}. */
final class QuorumLock implements RedLock {

    static final Duration MIN_NODE_TIMEOUT = Duration.ofMillis(10);
    static final Duration MAX_NODE_TIMEOUT = Duration.ofMillis(100);
    private static final long DRIFT_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final List<DistributedLock> parts;
    private final int quorum;
    private final String name;
    /** The per-node timeout, or {@code null} for the default derived from each acquire's lease. */
    private final Duration nodeTimeout;
    /** Thread-owned holds of this instance; a hold's count is touched only by its own thread. */
    private final ConcurrentHashMap<Thread, OwnedHold> owned = new ConcurrentHashMap<>();

    QuorumLock(List<DistributedLock> parts, Duration nodeTimeout) {
        this.parts = List.copyOf(parts);
        this.quorum = this.parts.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        String first = this.parts.get(0).name();
        boolean sameName = this.parts.stream().allMatch(p -> p.name().equals(first));
        this.name = sameName ? first : "redLock" + this.parts.stream().map(DistributedLock::name).toList();
    }

    /** The clock drift allowance of the Redis RedLock description: 1 % of the lease plus 2 ms. */
    static long driftNanos(long leaseNanos) {
        return leaseNanos / 100 + DRIFT_FLOOR_NANOS;
    }

    long nodeTimeoutNanos(Duration leaseTime) {
        if (nodeTimeout != null) {
            return nodeTimeout.toNanos();
        }
        if (leaseTime == null) {
            return MAX_NODE_TIMEOUT.toNanos();
        }
        long tenth = CombinatorArgs.saturatedNanos(leaseTime) / 10;
        return Math.max(MIN_NODE_TIMEOUT.toNanos(), Math.min(MAX_NODE_TIMEOUT.toNanos(), tenth));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int quorum() {
        return quorum;
    }

    // ---- the algorithm ----

    /** The outcome of one attempt: a lease, or why not. */
    private static final class Attempt {
        final QuorumLease lease;
        final int taken;
        final int busy;
        final List<String> failed;
        final List<Throwable> errors;

        Attempt(QuorumLease lease, int taken, int busy, List<String> failed, List<Throwable> errors) {
            this.lease = lease;
            this.taken = taken;
            this.busy = busy;
            this.failed = failed;
            this.errors = errors;
        }
    }

    /**
     * Asks every part at once, waits until all answered or the per-node timeout passed, and keeps the parts taken
     * if they are a quorum with validity left; otherwise releases them (waiting at most the per-node timeout) and
     * completes without a lease. Parts that answer late are released whenever they answer.
     */
    private CompletableFuture<Attempt> attempt(Duration leaseTime, Duration nodeWait) {
        long timeoutNanos = nodeTimeoutNanos(leaseTime);
        long start = System.nanoTime();
        List<CompletableFuture<Optional<LockLease>>> calls = new ArrayList<>(parts.size());
        for (DistributedLock part : parts) {
            calls.add(AsyncOrderedAcquisition.call(() -> part.tryAcquireAsync(nodeWait, leaseTime)));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
                .handle((v, e) -> (Void) null)
                .completeOnTimeout(null, timeoutNanos, TimeUnit.NANOSECONDS)
                .thenCompose(v -> decide(calls, start, leaseTime, timeoutNanos));
    }

    private CompletableFuture<Attempt> decide(List<CompletableFuture<Optional<LockLease>>> calls, long start,
                                              Duration leaseTime, long timeoutNanos) {
        List<LockLease> taken = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        int busy = 0;
        for (int i = 0; i < calls.size(); i++) {
            CompletableFuture<Optional<LockLease>> call = calls.get(i);
            String partName = "parts[" + i + "] '" + parts.get(i).name() + "'";
            if (!call.isDone()) {
                failed.add(partName + " (no answer within " + Duration.ofNanos(timeoutNanos).toMillis() + " ms)");
                call.thenAccept(late -> late.ifPresent(CombinatorArgs::releaseQuietly));
            } else if (call.isCompletedExceptionally()) {
                Throwable error = CombinatorArgs.unwrap(call.handle((r, e) -> e).join());
                failed.add(partName + " (" + error + ")");
                errors.add(error);
            } else if (call.join().isPresent()) {
                taken.add(call.join().get());
            } else {
                busy++;
            }
        }
        long now = System.nanoTime();
        boolean watchdog = leaseTime == null;
        long validUntil = 0;
        if (!watchdog) {
            long leaseNanos = CombinatorArgs.saturatedNanos(leaseTime);
            validUntil = start + leaseNanos - driftNanos(leaseNanos);
        }
        List<LockLease> valid = new ArrayList<>(taken.size());
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (LockLease lease : taken) {
            if (lease.isValid()) {
                valid.add(lease);
            } else {
                releases.add(CombinatorArgs.releaseQuietly(lease));   // lost already: cannot count
            }
        }
        if (valid.size() >= quorum && (watchdog || validUntil - now > 0)) {
            QuorumLease lease = new QuorumLease(name, valid, quorum, parts.size(), watchdog, validUntil);
            return CompletableFuture.completedFuture(new Attempt(lease, valid.size(), busy, failed, errors));
        }
        for (LockLease lease : valid) {
            releases.add(CombinatorArgs.releaseQuietly(lease));
        }
        Attempt failure = new Attempt(null, taken.size(), busy, failed, errors);
        return CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]))
                .completeOnTimeout(null, timeoutNanos, TimeUnit.NANOSECONDS)
                .thenApply(v -> failure);
    }

    /** Whether the failed parts leave too few to ever form a quorum: waiting longer would not help. */
    private boolean noQuorumPossible(Attempt a) {
        return a.failed.size() > parts.size() - quorum;
    }

    private LockUnavailableException unavailable(Attempt a) {
        LockUnavailableException e = new LockUnavailableException(String.format(
                "redLock '%s': %d of %d parts failed or did not answer, so no quorum of %d is possible: %s", name,
                a.failed.size(), parts.size(), quorum, a.failed),
                a.errors.isEmpty() ? null : a.errors.get(0));
        for (int i = 1; i < a.errors.size(); i++) {
            e.addSuppressed(a.errors.get(i));
        }
        return e;
    }

    private Duration nodeWait(long remainingNanos, long timeoutNanos) {
        return remainingNanos == 0 ? Duration.ZERO : Duration.ofNanos(Math.min(timeoutNanos / 2, remainingNanos));
    }

    private long backoffNanos(long remainingNanos, long timeoutNanos) {
        // random, so that clients that failed together do not retry together and split the servers again
        return ThreadLocalRandom.current().nextLong(1, Math.max(2, Math.min(timeoutNanos, remainingNanos)));
    }

    /** Attempts until a quorum is taken or {@code waitNanos} ran out ({@code null} then). */
    private QuorumLease acquireBlocking(long waitNanos, Duration leaseTime, boolean interruptible)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = CombinatorArgs.deadline(waitNanos);
        long timeoutNanos = nodeTimeoutNanos(leaseTime);
        boolean interrupted = false;
        try {
            while (true) {
                CompletableFuture<Attempt> pending =
                        attempt(leaseTime, nodeWait(CombinatorArgs.remaining(deadline), timeoutNanos));
                Attempt a;
                while (true) {
                    try {
                        a = pending.get();
                        break;
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            abandon(pending, timeoutNanos);
                            throw e;
                        }
                        interrupted = true;
                    } catch (ExecutionException e) {
                        throw CombinatorArgs.rethrow(e);
                    }
                }
                if (a.lease != null) {
                    return a.lease;
                }
                if (noQuorumPossible(a)) {
                    throw unavailable(a);
                }
                long remaining = CombinatorArgs.remaining(deadline);
                if (remaining == 0) {
                    return null;
                }
                try {
                    TimeUnit.NANOSECONDS.sleep(backoffNanos(remaining, timeoutNanos));
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Releases whatever an interrupted attempt takes, waiting a bounded time so that the caller returns clean. */
    private static void abandon(CompletableFuture<Attempt> pending, long timeoutNanos) {
        CompletableFuture<Void> cleaned = pending.thenCompose(a ->
                a.lease == null ? CompletableFuture.completedFuture(null) : CombinatorArgs.releaseQuietly(a.lease));
        try {
            cleaned.get(3 * timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the parts expire with their leases; the caller is told about the interrupt, not about this
        }
    }

    /** The asynchronous loop: completes {@code result} with a lease, {@code empty} on timeout, or failure. */
    private CompletableFuture<Optional<QuorumLease>> acquireAsync(long waitNanos, Duration leaseTime) {
        CompletableFuture<Optional<QuorumLease>> result = new CompletableFuture<>();
        attemptAsync(result, CombinatorArgs.deadline(waitNanos), leaseTime);
        return result;
    }

    private void attemptAsync(CompletableFuture<Optional<QuorumLease>> result, long deadline, Duration leaseTime) {
        if (result.isDone()) {
            return;
        }
        long timeoutNanos = nodeTimeoutNanos(leaseTime);
        attempt(leaseTime, nodeWait(CombinatorArgs.remaining(deadline), timeoutNanos)).whenComplete((a, e) -> {
            if (e != null) {
                result.completeExceptionally(CombinatorArgs.unwrap(e));
            } else if (a.lease != null) {
                if (!result.complete(Optional.of(a.lease))) {
                    CombinatorArgs.releaseQuietly(a.lease);
                }
            } else if (noQuorumPossible(a)) {
                result.completeExceptionally(unavailable(a));
            } else {
                long remaining = CombinatorArgs.remaining(deadline);
                if (remaining == 0) {
                    result.complete(Optional.empty());
                    return;
                }
                CompletableFuture.delayedExecutor(backoffNanos(remaining, timeoutNanos), TimeUnit.NANOSECONDS)
                        .execute(() -> attemptAsync(result, deadline, leaseTime));
            }
        });
    }

    // ---- lease-owned ----

    @Override
    public RedLockLease acquire() throws InterruptedException {
        return acquireBlocking(CombinatorArgs.FOREVER, null, true);
    }

    @Override
    public RedLockLease acquire(Duration leaseTime) throws InterruptedException {
        CombinatorArgs.checkLease(leaseTime);
        return acquireBlocking(CombinatorArgs.FOREVER, leaseTime, true);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime, null);
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        return Optional.ofNullable(acquireBlocking(wait, leaseTime, true));
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync() {
        return CombinatorArgs.cancellableView(acquireAsync(CombinatorArgs.FOREVER, null), lease -> lease.get());
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = CombinatorArgs.waitNanos(waitTime);
        CombinatorArgs.checkOptionalLease(leaseTime);
        Function<Optional<QuorumLease>, Optional<LockLease>> widen = lease -> lease.map(LockLease.class::cast);
        return CombinatorArgs.cancellableView(acquireAsync(wait, leaseTime), widen);
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
            return own(acquireBlocking(waitNanos, leaseTime, false));
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
            own(acquireBlocking(CombinatorArgs.FOREVER, null, true));
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
        return reenter() || own(acquireBlocking(wait, leaseTime, true));
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
