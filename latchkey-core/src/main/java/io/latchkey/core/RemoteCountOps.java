package io.latchkey.core;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What a backend implements for one kind of counted resource — a semaphore's permits, a permit-expirable
 * semaphore's leased permits, or a count-down latch's count: the remote half, beside {@link RemoteLockOps} for
 * locks. The engine ({@link AbstractLockClient}) does everything local on top of it: argument checks, the local
 * queue of waiting threads, one remote attempt at a time per name in a client, deadlines, interruption (an
 * abandoned attempt that took permits gives them back), renewal of watchdog permits by the client's one watchdog,
 * and logging a permit it could not renew. A backend keeps only its recipes (scripts, znodes, rows, transactions).
 *
 * <h2>Single attempts and wake-ups</h2>
 * Unlike {@link RemoteLockOps#acquire}, nothing here waits: {@link #tryTake}, {@link #tryLease} and
 * {@link #getCount} each look once and answer. The engine waits between attempts, woken by
 * {@link #subscribe subscriptions} (pub/sub, watches, notifications) and, as the fallback for a lost push, by a
 * re-check every {@link #recheckMillis()}. A backend must therefore make every change that could let a waiter in
 * (a release, a revoked permit, added permits, a count reaching zero) visible to its subscribers. The one change
 * nobody announces, a permit's lease running out on the server's clock, is named by the refused
 * {@linkplain #tryLease lease attempt} itself: it answers {@linkplain Attempt#busy(long) busy} with the time until
 * the earliest lease ends, and the engine looks again then; a backend keeps no timer of its own for it.
 *
 * <h2>Which methods an instance serves</h2>
 * One instance serves one kind: a semaphore ({@link #tryTake}, {@link #give}, {@link #drainPermits}), a
 * permit-expirable semaphore ({@link #tryLease}, {@link #release}, {@link #updateLease}, {@link #renew}), or a latch
 * ({@link #trySetCount}, {@link #countDown}, {@link #getCount}); the permit counts ({@link #availablePermits},
 * {@link #trySetPermits}, {@link #addPermits}) belong to both semaphores. The methods of other kinds throw
 * {@link UnsupportedOperationException} (the defaults).
 *
 * <h2>Futures, failures, retries</h2>
 * Every method is asynchronous and must not block the calling thread on I/O; futures must not be completed while
 * the backend holds a lock of its own. They fail with {@link io.latchkey.LockUnavailableException} (naming the
 * server and the operation, with the driver's error as cause) when the backend is unreachable or slower than the
 * client's operation timeout. A removal that the engine (or the caller) relies on to free something for other
 * clients — {@link #release}, or a waiter's entry a backend keeps while it looks — must not be left behind when it
 * fails on a live session: the backend retries it until the server answers, and still fails the caller's future.
 * Operations that are not idempotent ({@link #give}, {@link #addPermits}, {@link #countDown}) are sent once; a
 * failure leaves the caller to decide.
 *
 * <h2>Ownership, leases and crashes</h2>
 * A semaphore's permits are owned by nobody: a holder that crashes keeps them taken, so its recipe needs no lease.
 * A leased permit is owned by its id; it ends when released, when its fixed lease runs out on the server's clock, or
 * (watchdog permits) when the engine stops renewing it — a crashed client's watchdog permits return about one
 * watchdog timeout later, and the engine logs a permit it could not renew in time. A latch's count has no owner
 * and no lease: an armed latch outlives its clients.
 *
 * <h2>Memory effects</h2>
 * The engine adds none of its own: what one client did before a change (a release, a count-down) is visible to
 * another client after it observes that change only as far as the backend orders its writes and reads. Backends
 * with a single linearizable order (Redis on one primary, etcd, ZooKeeper writes) give the
 * {@link java.util.concurrent.Semaphore} and {@link java.util.concurrent.CountDownLatch} guarantee for data kept in
 * the same system; data elsewhere needs its own ordering (a fencing check).
 *
 * <h2>How today's recipes map</h2>
 * Redis: {@link #tryTake}/{@link #tryLease} are the acquire scripts run once, {@link #subscribe} the release
 * channel, {@link #renew} one script over the batch. ZooKeeper ({@code ZkSemaphoreOps} and friends): a single
 * attempt first reads the permit count and the children, and only when enough look free creates sequential
 * ephemeral nodes under the semaphore's node, lists the children again and keeps its nodes only if they are among
 * the first permits (else deletes them — a delete retried on connection loss, per the rule above); reading first
 * keeps a waiter's own creates and deletes from waking it in a loop. {@link #subscribe} is one persistent watch on
 * the node. etcd: compare-and-set transactions on a count key, a watch from the read's revision. {@code file://}:
 * one read-modify-write of the name's state file under the directory's lock, the directory watcher for wake-ups.
 * SQL: {@link #tryTake} is one conditional {@code UPDATE}, {@link #tryLease} one {@code INSERT} guarded by a count,
 * {@link #subscribe} {@code LISTEN/NOTIFY} where the database has it; elsewhere the subscription completes at once
 * and the engine's {@link #recheckMillis() re-check} does the waking.
 */
public interface RemoteCountOps {

    /** The engine's fallback re-check of a waiter when no wake-up came; the default is 5 s. */
    long DEFAULT_RECHECK_MILLIS = 5_000;

    // --------------------------------------------------------------------------------------------- wake-ups

    /**
     * Starts telling {@code changed} about every change of {@code name}'s state that may let a waiter in (for a
     * semaphore: permits returned, added or expired; for a latch: the count reaching zero). Spurious calls are
     * harmless: the engine looks again. The future completes once every change made after its completion will be
     * reported (a watch from a known revision, a confirmed subscription); the engine looks once more then, so a
     * change between a failed attempt and the subscription is not missed. {@code changed} must not block.
     *
     * <p>The engine keeps one subscription per name per client while threads wait for it, and closes it when the
     * last one stops waiting.
     *
     * @param name the semaphore's or latch's name
     * @param changed what to run on each change; fast, never blocking, possibly on a backend's I/O thread
     * @return a future of the subscription, completed once every later change will be reported
     */
    CompletableFuture<Subscription> subscribe(String name, Runnable changed);

    /**
     * {@return how long the engine waits for a wake-up before it looks again anyway, in milliseconds} The default
     * is {@link #DEFAULT_RECHECK_MILLIS}.
     */
    default long recheckMillis() {
        return DEFAULT_RECHECK_MILLIS;
    }

    /** A subscription of {@link #subscribe}; closing it stops the wake-ups (idempotent, never blocks). */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    // ------------------------------------------------------------------------------------------ permit counts

    /**
     * Reads the permits available now: for a permit-expirable semaphore the total less the permits held and not
     * expired. A semaphore never set has 0.
     *
     * @param name the semaphore's name
     * @return a future of the number of available permits
     * @throws UnsupportedOperationException unless a semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Integer> availablePermits(String name) {
        throw new UnsupportedOperationException("availablePermits");
    }

    /**
     * Sets the permits to {@code permits} if they were never set.
     *
     * @param name the semaphore's name
     * @param permits the number of permits, at least 0
     * @return a future of whether it set them ({@code false}: they had been set before)
     * @throws UnsupportedOperationException unless a semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        throw new UnsupportedOperationException("trySetPermits");
    }

    /**
     * Adds {@code delta} permits (removes them if negative; a semaphore never set starts from 0) and wakes
     * subscribers. Sent once, not retried.
     *
     * @param name the semaphore's name
     * @param delta how many permits to add, or to remove if negative
     * @return a future that completes when the change is made
     * @throws UnsupportedOperationException unless a semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Void> addPermits(String name, int delta) {
        throw new UnsupportedOperationException("addPermits");
    }

    // -------------------------------------------------------------------------------------------- semaphores

    /**
     * Takes {@code permits} unowned permits of a semaphore if that many are available now, all or none. Looks
     * once; does not wait.
     *
     * @param name the semaphore's name
     * @param permits how many permits to take, at least 1
     * @return a future of whether it took them
     * @throws UnsupportedOperationException unless a semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Boolean> tryTake(String name, int permits) {
        throw new UnsupportedOperationException("tryTake");
    }

    /**
     * As {@link #tryTake(String, int)}, for an attempt named {@code attemptId}: a backend that overrides
     * {@link #cleanUpTake} stores the id with the permits it took, for a while, so that the take can be undone if its
     * answer never comes. The default ignores the id.
     *
     * @param name the semaphore's name
     * @param permits how many permits to take, at least 1
     * @param attemptId the attempt's id, unique per waiter ({@link AcquireRequest#attemptId()})
     * @return a future of whether it took them
     */
    default CompletableFuture<Boolean> tryTake(String name, int permits, String attemptId) {
        return tryTake(name, permits);
    }

    /**
     * Gives back the permits that the take {@code attemptId} took if it took them and they were not given back yet
     * (its answer never came: the operation timeout, a lost connection, a paused server that ran it later), and wakes
     * subscribers; does nothing otherwise. Idempotent: the engine tries it again until the server answers. If the
     * take's answer does come, late, the engine gives the permits back with {@link #give} instead; it never does both.
     * The default does nothing (a backend that keeps no record of takes).
     *
     * @param name the semaphore's name
     * @param permits how many permits the take asked for
     * @param attemptId the take's id, as {@link #tryTake(String, int, String)} was given it
     * @return a future of whether permits were given back
     */
    default CompletableFuture<Boolean> cleanUpTake(String name, int permits, String attemptId) {
        return CompletableFuture.completedFuture(false);
    }

    /**
     * Returns {@code permits} unowned permits to a semaphore and wakes subscribers. Sent once, not retried.
     *
     * @param name the semaphore's name
     * @param permits how many permits to return, at least 1
     * @return a future that completes when they are returned
     * @throws UnsupportedOperationException unless a semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Void> give(String name, int permits) {
        throw new UnsupportedOperationException("give");
    }

    /**
     * Takes every available permit of a semaphore.
     *
     * @param name the semaphore's name
     * @return a future of how many permits it took (0 if none)
     * @throws UnsupportedOperationException unless a semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Integer> drainPermits(String name) {
        throw new UnsupportedOperationException("drainPermits");
    }

    // ------------------------------------------------------------------------------ permit-expirable semaphores

    /**
     * Takes one leased permit called {@code permitId} if one is available now. With {@code watchdog} the lease is
     * {@code leaseMillis} and the engine {@linkplain #renew renews} it; without, the permit returns by itself
     * {@code leaseMillis} after it was taken (no later than the server-side equivalent of that time; a backend
     * whose server rounds leases up ends the permit on time itself). Completes with the grant (the permit id as
     * {@link Grant#ownerId()}, a token that grows per name, {@link Grant#requestedAtNanos()} no later than the
     * lease's start) {@linkplain Attempt#granted granted}, or {@linkplain Attempt#busy(long) busy} when none is
     * available, with the time until the earliest held permit's lease ends where the backend read it (the engine
     * looks again then without a push: nothing announces a lease that runs out).
     *
     * @param name the semaphore's name
     * @param permitId the new permit's id, chosen by the engine and unique
     * @param leaseMillis the permit's lease in milliseconds: the fixed lease, or the watchdog timeout
     * @param watchdog whether the engine will renew the permit
     * @return a future of the answer: the permit's grant, or busy with when to look again
     * @throws UnsupportedOperationException unless a permit-expirable semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        throw new UnsupportedOperationException("tryLease");
    }

    /**
     * The answer to one {@linkplain #tryLease lease attempt}: the permit's grant, or when to look again. A
     * semaphore's {@link #tryTake} needs none: its permits have no lease, so every change that frees one is pushed.
     *
     * @param grant the permit's grant, or {@code null} if no permit was available
     * @param recheckNanos when none was available: when to look again at the latest even without a push (the time
     *        until the earliest held permit's lease ends, plus the server clock's granularity), or 0 for no hint;
     *        the engine bounds it by {@link #recheckMillis()}
     */
    record Attempt(Grant grant, long recheckNanos) {

        /** {@return the answer of an attempt that took a permit} */
        public static Attempt granted(Grant grant) {
            return new Attempt(java.util.Objects.requireNonNull(grant, "grant"), 0);
        }

        /** {@return the answer of an attempt that found no permit: look again within {@code recheckNanos}} */
        public static Attempt busy(long recheckNanos) {
            return new Attempt(null, Math.max(0, recheckNanos));
        }

        /** {@return the answer of an attempt that found no permit and knows no lease end: the engine's re-check} */
        public static Attempt busy() {
            return new Attempt(null, 0);
        }

        /** {@return whether a permit was taken} */
        public boolean isGranted() {
            return grant != null;
        }
    }

    /**
     * Returns the permit {@code permitId} (which may have been taken by another client) and wakes subscribers.
     * Retried until the server answers (see the class comment).
     *
     * @param name the semaphore's name
     * @param permitId the permit's id, as {@link #tryLease} was given it
     * @return a future of {@code false} if the permit had expired or was already released, {@code true} otherwise
     * @throws UnsupportedOperationException unless a permit-expirable semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Boolean> release(String name, String permitId) {
        throw new UnsupportedOperationException("release");
    }

    /**
     * Gives the permit a fixed lease of {@code leaseMillis} from now, ending any watchdog lease.
     *
     * @param name the semaphore's name
     * @param permitId the permit's id
     * @param leaseMillis the new lease in milliseconds, counted from now on the server's clock
     * @return a future of {@code false} if the permit had expired or was released, {@code true} otherwise
     * @throws UnsupportedOperationException unless a permit-expirable semaphore's ops overrides it (the default)
     */
    default CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        throw new UnsupportedOperationException("updateLease");
    }

    /**
     * Ends at the server the permit {@code permitId} of this client, whose fixed lease has run out: the recipe's
     * clean-up for a server that keeps no expiry of its own that ends on time (ZooKeeper nodes, etcd's whole-second
     * leases). A backend whose server expires permits itself keeps the default, which does nothing.
     *
     * <p>The same contract as {@link RemoteLockOps#leaseEnded}: called by the engine on the client's timer thread,
     * once, when the local bound of a fixed-lease permit this client took ({@link #tryLease} without the watchdog, or
     * {@link #updateLease}) has passed (its start, {@code requestedAtNanos} of the grant or the time the update was
     * sent, plus the lease; never earlier), unless the permit was released or its lease updated first through this
     * client; never for a watchdog permit. It must not block (start the removal, return); a
     * {@link RuntimeException} it throws is logged and ignored; a removal that fails on a live session is retried
     * by the backend until the server answers. It may race a {@link #release} of the same permit id (by this or
     * another client): both must remove only this permit, so either order leaves the same state.
     *
     * @param name the semaphore's name
     * @param permitId the permit's id, as {@link #tryLease} was given it
     */
    default void leaseEnded(String name, String permitId) {
    }

    /**
     * {@return whether permits can be renewed by the watchdog} That is, whether {@code tryLease(…, watchdog = true)}
     * and {@link #renew} are supported; the default is {@code false}.
     */
    default boolean renewsPermits() {
        return false;
    }

    /**
     * Extends every watchdog permit to its {@link Grant#leaseMillis()} from now, in as few round trips as the
     * backend allows; the same promise as {@link RemoteLockOps#renew}: only the exact permit granted is extended.
     *
     * @param grants the watchdog permits of this ops that the engine still counts as held
     * @return a future of the grants that were no longer held (expired, released by someone else)
     */
    default CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        throw new UnsupportedOperationException("renew");
    }

    // ---------------------------------------------------------------------------------------------- latches

    /**
     * Sets the count to {@code count} if the latch is open (count 0).
     *
     * @param name the latch's name
     * @param count the new count, at least 1
     * @return a future of whether it set the count ({@code false}: the latch was armed)
     * @throws UnsupportedOperationException unless a latch's ops overrides it (the default)
     */
    default CompletableFuture<Boolean> trySetCount(String name, long count) {
        throw new UnsupportedOperationException("trySetCount");
    }

    /**
     * Counts the latch down by one unless it is open already; reaching zero wakes subscribers. Concurrent
     * count-downs must never be lost (compare-and-set or a server-side script). Sent once, not retried.
     *
     * @param name the latch's name
     * @return a future that completes when the count-down is made
     * @throws UnsupportedOperationException unless a latch's ops overrides it (the default)
     */
    default CompletableFuture<Void> countDown(String name) {
        throw new UnsupportedOperationException("countDown");
    }

    /**
     * Reads the count now.
     *
     * @param name the latch's name
     * @return a future of the count; 0 when the latch is open or was never armed
     * @throws UnsupportedOperationException unless a latch's ops overrides it (the default)
     */
    default CompletableFuture<Long> getCount(String name) {
        throw new UnsupportedOperationException("getCount");
    }
}
