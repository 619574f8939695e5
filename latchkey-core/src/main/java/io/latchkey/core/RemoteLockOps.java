package io.latchkey.core;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What a backend implements for one kind of exclusive lock (plain, fair, spin …): the remote half of a lock. The
 * engine ({@link AbstractLockClient}) does everything local on top of it — reentrancy, leases, the watchdog,
 * loss signals, interruption, one remote waiter per name per JVM (per owner for a {@linkplain #fair() fair}
 * lock), argument checks — so implementations stay small and every backend behaves alike.
 *
 * <p>Every method is asynchronous and must not block the calling thread on I/O. Futures fail with
 * {@link io.latchkey.LockUnavailableException} (naming the server and operation, with the driver's error as
 * cause) when the backend is unreachable or slower than the client's operation timeout.
 *
 * <p>Owners are opaque strings chosen by the engine; the backend stores them as they are. Fencing tokens are
 * issued by the backend and must be strictly increasing per name across clients and restarts.
 */
public interface RemoteLockOps {

    /**
     * Takes the lock for {@code request.ownerId()}, waiting while it is busy. Completes with the grant once
     * taken; with {@code null} when the deadline passed or the request was cancelled first; exceptionally with
     * {@link io.latchkey.LockUnavailableException}. Must not spin on the server: wait for a wake-up (pub/sub,
     * watch, notification) with a bounded re-check (e.g. at the holder's remaining lease) as the fallback.
     *
     * <p>Unless the lock is {@link #fair()}, the engine calls this for at most one waiting owner per name at a
     * time in a client (a read lock's downgrade aside), so a backend needs one remote waiter per name. For a fair
     * lock every waiting owner of a client calls it at once: each request is its own waiter at the backend, with
     * its own place in line, its own wake-up and its own withdrawal when it is cancelled or its deadline passes.
     *
     * @param request the owner, lease, deadline and cancellation signal of this attempt
     * @return a future of the grant, or of {@code null} if the deadline passed or the request was cancelled
     */
    CompletableFuture<Grant> acquire(AcquireRequest request);

    /**
     * Releases the lock if {@code grant} still owns it, and wakes the backend's waiters.
     *
     * @param grant the hold to end, as this ops returned it
     * @return a future of {@code true} if it was released, {@code false} if the owner no longer held it (lost)
     */
    CompletableFuture<Boolean> release(Grant grant);

    /**
     * Extends every grant's lease to its {@link Grant#leaseMillis()} from now, in as few round trips as the
     * backend allows (ideally one for the whole batch). A renewal must only extend the exact hold it was issued
     * for: a grant whose owner released and re-acquired the lock (with another token) must not be extended.
     *
     * @param grants the watchdog-renewed holds of this ops that the engine still counts as held; not empty
     * @return a future of the grants that were no longer held (lost), a subset of {@code grants}
     */
    CompletableFuture<Set<Grant>> renew(Collection<Grant> grants);

    /** {@return whether {@link #handOff} is implemented} The default is {@code false}. */
    default boolean supportsHandOff() {
        return false;
    }

    /**
     * Atomically passes a held lock from {@code from}'s owner to {@code request.ownerId()} with a new fencing
     * token, in one round trip and without freeing it in between; used when another thread of this client waits
     * for a lock this client holds. Completes with the new grant, or {@code null} if {@code from} no longer held
     * the lock (then the engine treats {@code from} as lost and acquires normally).
     *
     * @param from the current hold, owned by this client
     * @param request the waiting owner's request, which receives the lock
     * @return a future of the new grant, or of {@code null} if {@code from} no longer held the lock
     * @throws UnsupportedOperationException unless {@link #supportsHandOff()} is {@code true} (the default)
     */
    default CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        throw new UnsupportedOperationException("handOff");
    }

    /**
     * {@return whether this lock serves its waiters in the order they called {@code lock()}, across clients} The engine
     * then sends every waiter's {@link #acquire} at once (one remote waiter per owner, not one per name), queues none
     * of them locally and never {@linkplain #handOff hands off}: a waiter of the client that holds the lock takes its
     * place in the backend's queue when it starts waiting, like any other client's. The backend must keep several
     * waiters of one client apart (queue entries by owner, each woken on its own). Reentrant acquires are still counted
     * locally. The default is {@code false}: the engine keeps one remote waiter per name and hands a held lock to the
     * next local waiter, which is faster but lets this client's threads overtake other clients'.
     */
    default boolean fair() {
        return false;
    }

    /**
     * {@return whether several owners may hold this lock at once (the read half of a read-write lock)} The engine then
     * lets local owners hold it side by side, each with its own grant, instead of queueing them behind each other. The
     * default is {@code false}: an exclusive lock.
     */
    default boolean shared() {
        return false;
    }

    /**
     * Describes who holds the lock now, for diagnostics (a timed-out wait logs it at debug level). The default
     * answers {@code null} without a round trip.
     *
     * @param name the lock's name
     * @return a future of a few words such as {@code "owner 3f2a…:41, token 17, expires in 2300 ms"}, or of
     *         {@code null} if the lock is free or the backend cannot tell cheaply
     */
    default CompletableFuture<String> describeHolder(String name) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Asks whether anyone, in any client, holds the lock now.
     *
     * @param name the lock's name
     * @return a future of whether the lock is held
     */
    CompletableFuture<Boolean> isLocked(String name);

    /**
     * Deletes the lock whoever holds it and wakes waiters. The holder learns of the loss at its next renewal or
     * release.
     *
     * @param name the lock's name
     * @return a future of whether the lock was held
     */
    CompletableFuture<Boolean> forceUnlock(String name);
}
