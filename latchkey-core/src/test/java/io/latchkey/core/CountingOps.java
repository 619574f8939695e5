package io.latchkey.core;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Wraps a backend's ops and counts its round trips, to check what the engine sends (and what it does not). */
final class CountingOps implements RemoteLockOps {
    final RemoteLockOps delegate;
    final AtomicInteger acquires = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger renewCalls = new AtomicInteger();
    final AtomicInteger renewedGrants = new AtomicInteger();
    final AtomicInteger handOffs = new AtomicInteger();
    final AtomicInteger holders = new AtomicInteger();
    final AtomicInteger inFlightAcquires = new AtomicInteger();
    final AtomicInteger maxInFlightAcquires = new AtomicInteger();

    CountingOps(RemoteLockOps delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletableFuture<Grant> acquire(AcquireRequest request) {
        acquires.incrementAndGet();
        maxInFlightAcquires.accumulateAndGet(inFlightAcquires.incrementAndGet(), Math::max);
        return delegate.acquire(request).whenComplete((g, e) -> inFlightAcquires.decrementAndGet());
    }

    @Override
    public boolean singleAttempts() {
        return delegate.singleAttempts();
    }

    /**
     * With single attempts, a remote waiter is an owner between its first attempt and its grant or withdrawal: its
     * first attempt counts as the acquire, the ones after it (re-checks, wake-ups) do not.
     */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        String owner = request.ownerId();
        if (waitingOwners.add(owner)) {
            acquires.incrementAndGet();
            maxInFlightAcquires.accumulateAndGet(inFlightAcquires.incrementAndGet(), Math::max);
        }
        return delegate.tryAcquire(request, entry).whenComplete((a, e) -> {
            if ((e != null || a.isGranted()) && waitingOwners.remove(owner)) {
                inFlightAcquires.decrementAndGet();
            }
        });
    }

    private final java.util.Set<String> waitingOwners = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return delegate.subscribe(name, changed);
    }

    /** When set, a withdrawal reaches the server only once this completes (a withdrawal on its way for a while). */
    volatile CompletableFuture<Void> withdrawGate;
    final AtomicInteger withdrawals = new AtomicInteger();

    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        if (waitingOwners.remove(request.ownerId())) {
            inFlightAcquires.decrementAndGet();
        }
        withdrawals.incrementAndGet();
        CompletableFuture<Void> gate = withdrawGate;
        return gate == null ? delegate.withdraw(request, entry) : gate.thenCompose(v -> delegate.withdraw(request, entry));
    }

    /** When set, a release reaches the server only once this completes (a release on its way for a while). */
    volatile CompletableFuture<Void> releaseGate;

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        releases.incrementAndGet();
        CompletableFuture<Void> gate = releaseGate;
        return gate == null ? delegate.release(grant) : gate.thenCompose(v -> delegate.release(grant));
    }

    /** Told of every {@link #leaseEnded} call, on the thread that made it. */
    volatile java.util.function.Consumer<Grant> onLeaseEnded = g -> { };
    final AtomicInteger leaseEnds = new AtomicInteger();

    @Override
    public void leaseEnded(Grant grant) {
        leaseEnds.incrementAndGet();
        onLeaseEnded.accept(grant);
        delegate.leaseEnded(grant);
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        renewCalls.incrementAndGet();
        renewedGrants.addAndGet(grants.size());
        return delegate.renew(grants);
    }

    @Override
    public boolean supportsHandOff() {
        return delegate.supportsHandOff();
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        handOffs.incrementAndGet();
        return delegate.handOff(from, request);
    }

    @Override
    public boolean shared() {
        return delegate.shared();
    }

    @Override
    public boolean fair() {
        return delegate.fair();
    }

    @Override
    public CompletableFuture<io.latchkey.LockHolder> holder(String name) {
        holders.incrementAndGet();
        return delegate.holder(name);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return delegate.isLocked(name);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        return delegate.forceUnlock(name);
    }
}
