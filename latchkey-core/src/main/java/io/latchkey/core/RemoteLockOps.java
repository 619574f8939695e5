package io.latchkey.core;

import io.latchkey.LockHolder;
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
     * <p>Only for recipes that block inside the server by nature and whose release nobody announces (the SQL
     * advisory locks: {@code pg_advisory_lock}, {@code GET_LOCK}); every other recipe answers
     * {@linkplain #singleAttempts() single attempts} and lets the engine wait. Not called for an ops that answers
     * single attempts; the default throws.
     *
     * @param request the owner, lease, deadline and cancellation signal of this attempt
     * @return a future of the grant, or of {@code null} if the deadline passed or the request was cancelled
     */
    default CompletableFuture<Grant> acquire(AcquireRequest request) {
        throw new UnsupportedOperationException("acquire: " + this + " answers single attempts");
    }

    // ------------------------------------------------------------------------------------- single attempts

    /**
     * {@return whether this ops answers single attempts ({@link #tryAcquire}, {@link #subscribe}, {@link #withdraw})}
     * The engine then waits itself and never calls {@link #acquire}: it keeps one attempt in flight per name (per
     * waiter for a {@linkplain #fair() fair} lock), re-checks at the {@linkplain Attempt#recheckNanos() hint} of a
     * busy answer or when a subscription reports a change, arms the one deadline timer of each waiter, and handles
     * interrupts, cancellation and the give-back of a grant that raced them. The default is {@code false}: the
     * backend waits in {@link #acquire} (the form recipes that block inside the server, such as
     * {@code pg_advisory_lock}, keep).
     */
    default boolean singleAttempts() {
        return false;
    }

    /**
     * Looks once: takes the lock for {@code request.ownerId()} if it can, and answers at once. Never waits, never
     * arms a timer, never looks at the request's deadline or cancellation: the engine does.
     *
     * @param request the owner and lease of the waiter
     * @param entry the waiter's place in the server's queue from its previous {@linkplain Attempt#queued queued}
     *        answer, or {@code null} on its first attempt (and always for a lock that keeps no server queue)
     * @return a future of the answer: {@linkplain Attempt#granted granted}, {@linkplain Attempt#busy busy} or
     *         {@linkplain Attempt#queued queued}
     * @throws UnsupportedOperationException unless {@link #singleAttempts()}
     */
    default CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        throw new UnsupportedOperationException("tryAcquire");
    }

    /**
     * Starts telling {@code changed} about every change of {@code name} that can let a waiter in (a release, an
     * expiry, a forced unlock, a withdrawn queue entry). A lost push only delays a waiter until its re-check. The engine
     * keeps at most one subscription per name and client, while anyone of the client waits for it.
     *
     * @param name the lock's name
     * @param changed what to run on a change; may run on any thread, must not be called under a backend lock
     * @return a future of the subscription, complete once it takes effect
     * @throws UnsupportedOperationException unless {@link #singleAttempts()}
     */
    default CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        throw new UnsupportedOperationException("subscribe");
    }

    /**
     * Gives up a waiter's place in the server's queue (its deadline passed, it was cancelled or interrupted, its
     * client closed). A backend whose withdrawal fails on a live session retries it until the server answers, so
     * that no entry blocks the queue. The default does nothing: a lock without a server queue has nothing to withdraw.
     *
     * @param request the waiter's request
     * @param entry the entry of its last {@linkplain Attempt#queued queued} answer; {@code null} after an attempt of a
     *        {@linkplain #fair() fair} lock failed before the engine learned its entry: the backend then finds the
     *        request's entry, if the attempt made one, by its owner
     * @return a future that completes once withdrawn
     */
    default CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Undoes what {@code request}'s attempts did at the server when the answer of one never came (the operation
     * timeout, a lost connection, a paused server that ran the attempt later): removes the hold the request made,
     * identified by its {@linkplain AcquireRequest#attemptId() attempt id} stored with the hold, and wakes the
     * backend's waiters; removes nothing else, in particular never a later hold of the same owner (a thread's next
     * {@code lock()} has the same owner id and another attempt id). Idempotent: the engine calls it once the request
     * makes no further attempt, and tries it again until the server answers. If the answer of the attempt does come,
     * late, the engine gives the grant back with {@link #release} instead; it never does both.
     *
     * <p>The default does nothing: for a backend whose unanswered attempt leaves nothing behind (a grant that is
     * tied to the connection that was lost, or that nobody but the waiter could have made).
     *
     * @param request the request whose attempt got no answer
     * @return a future of whether a hold made by the request was removed
     */
    default CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        return CompletableFuture.completedFuture(false);
    }

    /**
     * The answer to one {@linkplain #tryAcquire attempt}: the grant, or when to look again.
     *
     * @param grant the grant, or {@code null} if the lock was not taken
     * @param recheckNanos when not granted: when to look again at the latest even without a push (such as the holder's
     *        remaining lease); the engine bounds it
     * @param entry when not granted: the waiter's place in the server's queue, or {@code null} if none is kept
     * @param backoffNanos when not granted and nothing may push the change that lets the waiter in (a holder in
     *        another process that dies changes nothing anybody announces, a backend without notifications): the first
     *        wait of the engine's back-off, which grows with the time the waiter has waited up to
     *        {@code recheckNanos} ({@link #withBackoff}); 0 to look again at {@code recheckNanos}
     */
    record Attempt(Grant grant, long recheckNanos, String entry, long backoffNanos) {

        /** {@return the answer of an attempt that took the lock} */
        public static Attempt granted(Grant grant) {
            return new Attempt(java.util.Objects.requireNonNull(grant, "grant"), 0, null, 0);
        }

        /** {@return the answer of an attempt that found the lock busy: look again within {@code recheckNanos}} */
        public static Attempt busy(long recheckNanos) {
            return new Attempt(null, recheckNanos, null, 0);
        }

        /** {@return the answer of an attempt that keeps its place {@code entry} in the server's queue} */
        public static Attempt queued(String entry, long recheckNanos) {
            return new Attempt(null, recheckNanos, java.util.Objects.requireNonNull(entry, "entry"), 0);
        }

        /**
         * {@return this busy or queued answer, re-checked by the engine's back-off} The engine looks again after a
         * wait about as long as the waiter has waited so far (so the waits about double), at least
         * {@code floorNanos} and at most {@link #recheckNanos()} (such as the holder's remaining lease, when the lock
         * is surely free), each drawn from [d/2, d] so that waiters of several clients spread out. The engine keeps
         * the state; the backend keeps none per waiter.
         *
         * @param floorNanos the first wait, positive
         * @throws IllegalArgumentException if {@code floorNanos} is not positive
         * @throws IllegalStateException if this answer granted the lock
         */
        public Attempt withBackoff(long floorNanos) {
            if (floorNanos <= 0) {
                throw new IllegalArgumentException("the back-off's first wait must be positive but was "
                        + floorNanos + " ns");
            }
            if (grant != null) {
                throw new IllegalStateException("a granted attempt has no back-off");
            }
            return new Attempt(null, recheckNanos, entry, floorNanos);
        }

        /** {@return whether the lock was taken} */
        public boolean isGranted() {
            return grant != null;
        }
    }

    /**
     * Releases the lock if {@code grant} still owns it, and wakes the backend's waiters.
     *
     * @param grant the hold to end, as this ops returned it
     * @return a future of {@code true} if it was released, {@code false} if the owner no longer held it (lost)
     */
    CompletableFuture<Boolean> release(Grant grant);

    /**
     * Ends at the server the hold of {@code grant}, whose fixed lease has run out: the recipe's clean-up for a server
     * that keeps no expiry of its own that ends on time (a ZooKeeper node lives as long as its session, an etcd lease
     * is rounded up to whole seconds, an SQL advisory lock as long as its connection). A backend whose server expires
     * the hold itself (Redis {@code PEXPIRE}, a lease row compared with the database's clock) keeps the default,
     * which does nothing.
     *
     * <p><b>Who calls it, when.</b> The engine, for a hold with a fixed lease ({@link Grant#watchdog()} false) that
     * it still counted as held when its local bound passed ({@code requestedAtNanos} plus the lease, on the client's
     * clock; never earlier). The hold is marked lost first: its lease is invalid and a later {@code unlock} or
     * {@code release} of it throws {@link io.latchkey.LockLostException}; then this method is called; then the
     * {@code onLost} listeners run. It is called at most once per grant, and never for a grant that was released,
     * handed off or lost otherwise before its bound (those end through {@link #release}, {@link #handOff} or the
     * backend's own report). There is no per-hold timer: the engine keeps one heap of fixed leases and one timer.
     *
     * <p><b>Thread.</b> The client's timer thread (the watchdog's; see {@code docs/concurrency.md}), which also
     * renews every watchdog lease and ends every wait's deadline. The method must therefore not block: it starts
     * the asynchronous removal and returns. It must not complete an engine future while holding a lock of its own.
     *
     * <p><b>Failures.</b> A {@link RuntimeException} it throws is logged and otherwise ignored: the hold stays lost.
     * A removal that fails on a live session must be retried by the backend until the server answers (as a release
     * is), so that the hold does not block the name for longer than its lease; a hold whose session or connection
     * ends goes with it.
     *
     * <p><b>Ordering.</b> It may race the owner's clean-up {@link #release} of the same lost grant and the client's
     * {@code close()}: both the removal here and the release touch only this exact grant's hold (the node, key or
     * session of this grant, compared by its identity at the server), never a later hold of the same name, so either
     * order leaves the same state and never frees someone else's hold. Fencing tokens are unaffected: the next
     * holder's token comes from the server after this removal, as after a release.
     *
     * @param grant the grant whose fixed lease ran out, the very instance this ops returned
     */
    default void leaseEnded(Grant grant) {
    }

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
     * Asks who holds the lock now, in one round trip: the owner, the client name and start recorded with the hold,
     * the fencing token and lease left where the backend keeps them ({@link io.latchkey.DistributedLock#holder()},
     * and a timed-out wait that reports its holder). Read-only. The default answers {@code null} without a round
     * trip, for a lock that cannot tell.
     *
     * @param name the lock's name
     * @return a future of the holder (the first of several holders of a shared lock), or of {@code null} if the lock
     *         is free or the backend cannot tell
     */
    default CompletableFuture<LockHolder> holder(String name) {
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
