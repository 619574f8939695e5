package io.latchkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The RedLock algorithm of {@link QuorumLock}: attempts that ask every part at once, the quorum and validity
 * decision, and the blocking and asynchronous retry loops around them.
 */
final class QuorumAcquisition {

    static final Duration MIN_NODE_TIMEOUT = Duration.ofMillis(10);
    static final Duration MAX_NODE_TIMEOUT = Duration.ofMillis(100);
    private static final long DRIFT_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final List<DistributedLock> parts;
    private final int quorum;
    private final String name;
    /** The per-node timeout, or {@code null} for the default derived from each acquire's lease. */
    private final Duration nodeTimeout;

    QuorumAcquisition(List<DistributedLock> parts, int quorum, String name, Duration nodeTimeout) {
        this.parts = parts;
        this.quorum = quorum;
        this.name = name;
        this.nodeTimeout = nodeTimeout;
    }

    /** The clock drift allowance of the Redis RedLock description: 1 % of the lease plus 2 ms. */
    static long driftNanos(long leaseNanos) {
        return leaseNanos / 100 + DRIFT_FLOOR_NANOS;
    }

    long nodeTimeoutNanos(Duration leaseTime) {
        if (nodeTimeout != null) {
            return CombinatorArgs.saturatedNanos(nodeTimeout); // a timeout too long to represent: no bound
        }
        if (leaseTime == null) {
            return MAX_NODE_TIMEOUT.toNanos();
        }
        long tenth = CombinatorArgs.saturatedNanos(leaseTime) / 10;
        return Math.max(MIN_NODE_TIMEOUT.toNanos(), Math.min(MAX_NODE_TIMEOUT.toNanos(), tenth));
    }

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
                "redLock '%s': %d of %d parts failed or did not answer, so no quorum of %d is possible "
                        + "(taken and given back: %d, busy: %d): %s",
                name, a.failed.size(), parts.size(), quorum, a.taken, a.busy, a.failed),
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
    QuorumLease acquireBlocking(long waitNanos, Duration leaseTime, boolean interruptible)
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
    CompletableFuture<Optional<QuorumLease>> acquireAsync(long waitNanos, Duration leaseTime) {
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
}
