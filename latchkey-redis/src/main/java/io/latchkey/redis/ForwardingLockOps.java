package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Lock ops that pass every operation to {@code delegate}; a subclass overrides what it changes. */
abstract class ForwardingLockOps implements RemoteLockOps {

    final RemoteLockOps delegate;

    ForwardingLockOps(RemoteLockOps delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean singleAttempts() {
        return delegate.singleAttempts();
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        return delegate.tryAcquire(request, entry);
    }

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return delegate.subscribe(name, changed);
    }

    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        return delegate.withdraw(request, entry);
    }

    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        return delegate.cleanUpAttempt(request);
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        return delegate.release(grant);
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return delegate.renew(grants);
    }

    @Override
    public boolean supportsHandOff() {
        return delegate.supportsHandOff();
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        return delegate.handOff(from, request);
    }

    @Override
    public boolean fair() {
        return delegate.fair();
    }

    @Override
    public boolean shared() {
        return delegate.shared();
    }

    @Override
    public CompletableFuture<LockHolder> holder(String name) {
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
