package io.latchkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link OrderedAcquisition}'s algorithm for leases, without blocking a thread: each step starts when the
 * previous part's future completes. Cancelling the result abandons the wait and releases whatever was taken,
 * including a part taken concurrently with the cancellation.
 */
final class AsyncOrderedAcquisition {

    /** Waits longer than this are made of repeated waits, as there is no asynchronous "acquire forever" with a lease. */
    private static final Duration LONG_WAIT = Duration.ofDays(1);

    private final List<DistributedLock> parts;
    private final Duration leaseTime;
    private final long deadline;
    private final Function<List<LockLease>, LockLease> compose;
    private final AtomicReferenceArray<LockLease> held;
    private final CompletableFuture<Optional<LockLease>> result = new CompletableFuture<>();
    private volatile CompletableFuture<?> inFlight = CompletableFuture.completedFuture(null);

    private AsyncOrderedAcquisition(List<DistributedLock> parts, Duration leaseTime, long waitNanos,
                                    Function<List<LockLease>, LockLease> compose) {
        this.parts = parts;
        this.leaseTime = leaseTime;
        this.deadline = CombinatorArgs.deadline(waitNanos);
        this.compose = compose;
        this.held = new AtomicReferenceArray<>(parts.size());
    }

    /**
     * Starts taking every part (sorted by name) within {@code waitNanos}, with {@code leaseTime} ({@code null}:
     * watchdog). The future completes with the composed lease, or empty when the wait ran out.
     */
    static CompletableFuture<Optional<LockLease>> start(List<DistributedLock> parts, Duration leaseTime,
                                                        long waitNanos,
                                                        Function<List<LockLease>, LockLease> compose) {
        AsyncOrderedAcquisition a = new AsyncOrderedAcquisition(parts, leaseTime, waitNanos, compose);
        a.result.whenComplete((r, e) -> {
            if (a.result.isCancelled()) {
                a.inFlight.cancel(false);
                a.releaseHeld();
            }
        });
        a.next();
        return a.result;
    }

    private void next() {
        if (result.isDone()) {
            releaseHeld();
            return;
        }
        int i = 0;
        while (i < held.length() && held.get(i) != null) {
            i++;
        }
        if (i == held.length()) {
            List<LockLease> leases = new ArrayList<>(held.length());
            for (int j = 0; j < held.length(); j++) {
                leases.add(held.get(j));
            }
            LockLease composite;
            try {
                composite = compose.apply(leases);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            if (!result.complete(Optional.of(composite))) {
                releaseHeld();
            }
            return;
        }
        int index = i;
        DistributedLock part = parts.get(index);
        Object[] snapshot = new Object[held.length()];
        for (int j = 0; j < snapshot.length; j++) {
            snapshot[j] = held.get(j);
        }
        if (OrderedAcquisition.mayWaitFor(parts, snapshot, index)) {
            waitFor(part).whenComplete((lease, e) -> taken(index, lease, e));
            return;
        }
        track(call(() -> part.tryAcquireAsync(Duration.ZERO, leaseTime))).whenComplete((lease, e) -> {
            if (e != null || lease.isPresent()) {
                taken(index, lease, e);
                return;
            }
            // an equal name is held: wait for this part holding nothing, so that no cycle can form
            releaseHeldAsync().whenComplete((v, ignored) -> {
                if (result.isDone()) {
                    return;
                }
                waitFor(part).whenComplete((waited, e2) -> taken(index, waited, e2));
            });
        });
    }

    private void taken(int index, Optional<LockLease> lease, Throwable failure) {
        if (failure != null) {
            fail(CombinatorArgs.unwrap(failure));
            return;
        }
        if (lease.isEmpty()) {
            releaseHeld();
            result.complete(Optional.empty());
            return;
        }
        held.set(index, lease.get());
        // set before the check: a concurrent cancel either sees the lease or is seen here
        next();
    }

    /**
     * Waits for {@code part} until the deadline. Each backend future is {@linkplain #track tracked} itself, not a
     * future derived from it, so that cancelling reaches the backend's waiter.
     */
    private CompletableFuture<Optional<LockLease>> waitFor(DistributedLock part) {
        long remaining = CombinatorArgs.remaining(deadline);
        if (remaining != CombinatorArgs.FOREVER) {
            return track(call(() -> part.tryAcquireAsync(Duration.ofNanos(remaining), leaseTime)));
        }
        if (leaseTime == null) {
            return track(call(part::acquireAsync)).thenApply(Optional::of);
        }
        return track(call(() -> part.tryAcquireAsync(LONG_WAIT, leaseTime))).thenCompose(lease -> {
            if (lease.isPresent() || result.isDone()) {
                return CompletableFuture.completedFuture(lease);
            }
            return waitFor(part);
        });
    }

    private <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        inFlight = f;
        if (result.isDone()) {
            f.cancel(false);   // cancelled while this step was starting
        }
        return f;
    }

    private void fail(Throwable failure) {
        releaseHeld();
        result.completeExceptionally(failure);
    }

    private void releaseHeld() {
        releaseHeldAsync();
    }

    private CompletableFuture<Void> releaseHeldAsync() {
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (int j = held.length() - 1; j >= 0; j--) {
            LockLease lease = held.getAndSet(j, null);
            if (lease != null) {
                releases.add(call(lease::releaseAsync).exceptionally(e -> null));
            }
        }
        return CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]));
    }

    /** Runs an asynchronous call, turning an exception thrown before the future exists into a failed future. */
    static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
