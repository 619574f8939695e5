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
    public CompletableFuture<Boolean> release(Grant grant) {
        releases.incrementAndGet();
        return delegate.release(grant);
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
    public CompletableFuture<Boolean> isLocked(String name) {
        return delegate.isLocked(name);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        return delegate.forceUnlock(name);
    }
}
