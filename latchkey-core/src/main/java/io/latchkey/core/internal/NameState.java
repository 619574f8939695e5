package io.latchkey.core.internal;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The local state of one lock name of one {@link RemoteLockOps} in one client: who holds it here, who waits here,
 * and which requests are at the backend.
 *
 * <h2>Waiting</h2>
 * With an ops that answers {@linkplain RemoteLockOps#singleAttempts() single attempts} this class does the waiting,
 * each job in its own file: {@link LockAttempts} looks at the backend for the waiters there ({@link #inflight}, or
 * each of {@link #bypassing}), one attempt out per waiter, re-checks and the name's one subscription;
 * {@link LockWaitEnds} ends a waiter by its deadline (plus the attempt that was out, bounded by the operation
 * timeout), a cancel, an interrupt or the client's close, and gives back a grant that answers an abandoned waiter;
 * {@link LockRelease} releases a hold or hands it to the next local waiter. A local release pumps the next local
 * waiter ({@link #pumpLocked}). With an ops that waits itself ({@link RemoteLockOps#acquire}), the request goes to
 * the backend once ({@link BlockingAcquireAdapter}) and the backend does the waiting; only the deadline's backstop
 * and the give-back stay here.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>At most one queued waiter (the head) has a remote acquire in flight ({@link #inflight}); the others wait
 *     in {@link #queue}, FIFO. For an exclusive lock the head is only sent while no local owner holds the lock
 *     and no release is in flight: the backend could not grant it anyway.</li>
 * <li>Except for a {@linkplain RemoteLockOps#fair() fair} lock: every waiter is sent at once, beside the queue
 *     ({@link #bypassing}), so that it takes its place in the backend's queue when it starts waiting, even while
 *     another thread of this client holds the lock; the queue stays empty and nothing is handed off. (A read
 *     lock's downgrade is sent beside the queue as well: the backend grants it at once.)</li>
 * <li>When a local owner of an exclusive lock releases while a local waiter is queued, the lock is
 *     {@linkplain RemoteLockOps#handOff handed off} in one round trip, never free in between, at most
 *     {@link LockEngine#MAX_LOCAL_HAND_OFFS} times in a row; then it is released for real so that other clients'
 *     waiters get their turn.</li>
 * <li>Everything here is guarded by {@link #lock}, which is never held while calling the backend, completing a
 *     future or running a listener: backends may complete their futures on the calling thread.</li>
 * <li>An idle nameState stays in the engine's map ({@link #idle}) so that the next cycle on a hot name reuses it, but
 *     only while the watchdog runs and at most {@link LockEngine#MAX_IDLE_NAME_STATES} of them; a nameState still idle at two
 *     watchdog ticks in a row, or one that goes idle beyond that bound, removes itself ({@link #dead}); a caller
 *     that finds a dead nameState retries with a fresh one.</li>
 * </ul>
 */
@SuppressWarnings("serial") // never serialized: package-private, engine-internal
final class NameState extends ReentrantLock {
    final LockEngine engine;
    final RemoteLockOps ops;
    final String name;
    final boolean shared;
    /** Every waiter is sent at once, none queues locally, nothing is handed off: see the class comment. */
    final boolean fair;
    /** The ops answers single attempts: this nameState waits, re-checks and withdraws itself (see {@link LockAttempts}). */
    final boolean single;
    /**
     * Guards everything below. The name state is its own lock (it extends {@link ReentrantLock}): one object less
     * per held lock name; nothing outside the engine sees a name state.
     */
    final ReentrantLock lock = this;

    // everything below is guarded by lock
    /** Live holds by owner id, as {@link Holders} keeps them: at most one for an exclusive lock. */
    private Object holders;
    // lostHolds, queue and bypassing are created on first use: most nameStates live for one uncontended
    // lock/unlock cycle and never need them
    /** Thread-owned holds that were lost and whose owner has not unlocked yet (so that unlock can say so). */
    Map<String, Hold> lostHolds;
    ArrayDeque<Waiter> queue;
    Waiter inflight;
    /** Waiters at the backend beside the queue: every waiter of a fair lock, a read lock's downgrade. */
    Set<Waiter> bypassing;
    /** Releases in flight; an exclusive nameState does not send its head before they complete. */
    int releasing;
    int handOffStreak;
    boolean dead;
    /** Nothing held, waited for or in flight, but kept for reuse; counted in {@link LockEngine#idleNameStates}. */
    boolean idle;
    /** A watchdog sweep found it idle; still idle at the next sweep, it is dropped. */
    boolean idleSeen;
    /** Single attempts: the subscription to the name's changes, while a waiter is at the backend; made on first use. */
    ChangeSubscription subscription;
    /** Single attempts: changes pushed so far; an attempt that overlapped one looks again at once. */
    int changes;

    NameState(LockEngine engine, NameKey key) {
        this.engine = engine;
        this.ops = key.ops();
        this.name = key.name();
        this.shared = ops.shared();
        this.fair = ops.fair();
        this.single = ops.singleAttempts();
    }

    // ---------------------------------------------------------------------------------------------- acquire

    /** Under the lock: the caller's live thread-owned hold, re-entered, or {@code null}. */
    Hold reenterLocked(String ownerId) {
        Hold h = holderLocked(ownerId);
        if (h != null && h.threadOwned && h.isHeld()) {
            h.count++;
            return h;
        }
        return null;
    }

    /** Under the lock: a new acquire by {@code ownerId} after a loss it never unlocked starts afresh. */
    void forgetLostHoldLocked(String ownerId) {
        removeLostHoldLocked(ownerId);
    }

    /** Under the lock: queues {@code w}; returns the waiter to send now, if any. */
    Waiter enqueueLocked(Waiter w) {
        if (w.bypass || fair) {
            w.state = Waiter.State.INFLIGHT;
            if (bypassing == null) {
                // in arrival order: a push wakes a fair lock's waiters in the order they called
                bypassing = new java.util.LinkedHashSet<>(4);
            }
            bypassing.add(w);
            return w;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(4);
        }
        queue.add(w);
        return pumpLocked();
    }

    /** Under the lock: whether a new waiter would be sent at once rather than wait locally. */
    boolean canSendNowLocked() {
        return inflight == null && queueEmptyLocked() && (shared || (holders == null && releasing == 0));
    }

    Waiter pumpLocked() {
        if (inflight != null || queueEmptyLocked()) {
            return null;
        }
        if (!shared && (holders != null || releasing > 0)) {
            return null;
        }
        Waiter w = queue.poll();
        w.state = Waiter.State.INFLIGHT;
        inflight = w;
        return w;
    }

    /**
     * Under the lock: if nothing is held, waited for or in flight, keeps this nameState for reuse while the watchdog
     * can sweep it and fewer than {@link LockEngine#MAX_IDLE_NAME_STATES} are kept; otherwise forgets it.
     */
    void idleCheckLocked() {
        if (!dead && !idle && holders == null && (lostHolds == null || lostHolds.isEmpty()) && queueEmptyLocked()
                && inflight == null && (bypassing == null || bypassing.isEmpty()) && releasing == 0) {
            if (engine.keepIdle()) {
                idle = true;
                idleSeen = false;
            } else {
                dead = true;
                engine.nameStates.remove(new NameKey(ops, name), this);
            }
        }
    }

    /** Under the lock, before a new acquire uses this nameState: it is no longer idle. */
    void reviveLocked() {
        if (idle) {
            idle = false;
            // as a fresh nameState would be (a loss can leave a streak behind)
            handOffStreak = 0;
            engine.idleNameStates.decrementAndGet();
        }
    }

    /** A watchdog sweep (or close): drops this nameState if it was idle at the previous sweep too ({@code now}: at once). */
    void sweep(boolean now) {
        lock.lock();
        try {
            if (dead || !idle) {
                return;
            }
            if (now || idleSeen) {
                idle = false;
                engine.idleNameStates.decrementAndGet();
                dead = true;
                engine.nameStates.remove(new NameKey(ops, name), this);
            } else {
                idleSeen = true;
            }
        } finally {
            lock.unlock();
        }
    }

    boolean queueEmptyLocked() {
        return queue == null || queue.isEmpty();
    }

    void removeLostHoldLocked(String ownerId) {
        if (lostHolds != null) {
            lostHolds.remove(ownerId);
        }
    }

    void putLostHoldLocked(String ownerId, Hold h) {
        if (lostHolds == null) {
            lostHolds = new HashMap<>(2);
        }
        lostHolds.put(ownerId, h);
    }

    void removeBypassingLocked(Waiter w) {
        if (bypassing != null) {
            bypassing.remove(w);
        }
    }

    /** Under the lock: {@code w} (between attempts) is no longer at the backend. */
    void leaveBackendLocked(Waiter w) {
        if (inflight == w) {
            inflight = null;
        }
        removeBypassingLocked(w);
    }

    /** Sends {@code w}'s acquire to the backend; must be called without holding the lock. */
    void send(Waiter w) {
        if (w == null) {
            return;
        }
        if (single) {
            LockAttempts.attempt(this, w);
        } else {
            BlockingAcquireAdapter.send(this, w);
        }
    }

    /** The backend answered {@code w}'s acquire or hand-off. */
    void onGrantResult(Waiter w, Grant g, Throwable e, boolean handOff) {
        Runnable done;
        Waiter next;
        Grant lateGrant = null;
        Hold granted = null;
        lock.lock();
        try {
            if (inflight == w) {
                inflight = null;
            }
            if ((w.bypass || fair) && w.state != Waiter.State.ABANDONED) {
                removeBypassingLocked(w);
            }
            switch (w.state) {
                case INFLIGHT:
                    if (e != null) {
                        w.state = Waiter.State.FAILED;
                        Throwable cause = LockEngine.unwrap(e);
                        done = () -> w.future.completeExceptionally(cause);
                    } else if (g == null) {
                        w.state = Waiter.State.TIMED_OUT;
                        done = () -> {
                            engine.timedOut(ops, name, engine.time.nanoTime() - w.startNanos);
                            w.future.complete(null);
                        };
                    } else {
                        w.state = Waiter.State.GRANTED;
                        Hold h = new Hold(this, w.ownerId, w.threadOwned, g, engine.time.nanoTime());
                        putHolderLocked(h);
                        // a loss this owner never unlocked is superseded by the new hold
                        removeLostHoldLocked(w.ownerId);
                        if (!handOff) {
                            handOffStreak = 0;
                        }
                        granted = h;
                        done = () -> w.future.complete(h);
                    }
                    break;
                case CANCELLED:
                    if (g != null) {
                        lateGrant = g;
                        if (!shared) {
                            releasing++;
                        }
                        done = null;
                    } else {
                        done = () -> w.future.complete(null);
                    }
                    break;
                case ABANDONED:
                    lateGrant = g;
                    done = null;
                    break;
                default:
                    // already ended (timed out): a grant nobody will own goes back
                    lateGrant = g;
                    done = null;
            }
            next = pumpLocked();
            idleCheckLocked();
        } finally {
            lock.unlock();
        }
        w.cancelTimer();
        if (granted != null) {
            // renewal and expiry are armed before anyone can see the hold
            engine.remember(granted);
            engine.events.acquired(name, granted.acquiredAtNanos - w.startNanos);
        }
        if (lateGrant != null) {
            LockWaitEnds.releaseLateGrant(this, w, lateGrant);
        }
        if (done != null) {
            Trampoline.run(engine.callbacks, done);
        }
        send(next);
    }

    // ------------------------------------------------------------------------------ the jobs in their own files

    /** A push from the subscription (see {@link LockAttempts#changed}). */
    void changed() {
        LockAttempts.changed(this);
    }

    /** The waiter's wait time ran out (see {@link LockWaitEnds#onDeadline}). */
    void onDeadline(Waiter w) {
        LockWaitEnds.onDeadline(this, w);
    }

    /** The caller gave up on {@code w} (see {@link LockWaitEnds#cancel}). */
    void cancel(Waiter w) {
        LockWaitEnds.cancel(this, w);
    }

    /** Client close: every waiter fails with {@code failure} (see {@link LockWaitEnds#failAll}). */
    void failAll(RuntimeException failure) {
        LockWaitEnds.failAll(this, failure);
    }

    /** Releases {@code h} (see {@link LockRelease#release}). */
    CompletableFuture<Void> release(Hold h) {
        return LockRelease.release(this, h);
    }

    /** Release of a hold already known lost (see {@link LockRelease#releaseLost}). */
    CompletableFuture<Void> releaseLost(Hold h) {
        return LockRelease.releaseLost(this, h);
    }

    // ---------------------------------------------------------------------------------------------- holds

    /** A live hold was lost: it no longer blocks local waiters. */
    void onHoldLost(Hold h) {
        Waiter next;
        lock.lock();
        try {
            if (removeHolderLocked(h) && h.threadOwned) {
                putLostHoldLocked(h.ownerId, h);
            }
            next = pumpLocked();
            idleCheckLocked();
        } finally {
            lock.unlock();
        }
        send(next);
    }

    // ---------------------------------------------------------------------------------------------- thread owner

    /** What {@code unlock()} by {@code ownerId} must do, decided under the lock. */
    Object unlockThread(String ownerId) {
        lock.lock();
        try {
            Hold h = holderLocked(ownerId);
            if (h != null && h.threadOwned) {
                if (!h.isHeld()) {
                    // lost a moment ago; onHoldLost has not moved it yet: do it here, keeping the count so that
                    // every pending unlock of a nested hold reports the loss
                    removeHolderLocked(h);
                    if (--h.count > 0) {
                        putLostHoldLocked(ownerId, h);
                    }
                    idleCheckLocked();
                    return new LostUnlock(h);
                }
                if (--h.count > 0) {
                    return UnlockResult.STILL_HELD;
                }
                return h;
            }
            Hold lost = lostHolds == null ? null : lostHolds.get(ownerId);
            if (lost != null) {
                if (--lost.count <= 0) {
                    lostHolds.remove(ownerId);
                    idleCheckLocked();
                }
                return new LostUnlock(lost);
            }
            return UnlockResult.NOT_HELD;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the live hold of {@code ownerId}, or {@code null}. */
    private Hold holderLocked(String ownerId) {
        return Holders.of(holders, ownerId);
    }

    /** Under the lock: {@code h} becomes its owner's live hold (replacing any earlier one of that owner). */
    void putHolderLocked(Hold h) {
        holders = Holders.with(holders, h);
    }

    /** Under the lock: removes {@code h} if it is its owner's live hold; returns whether it was. */
    boolean removeHolderLocked(Hold h) {
        if (Holders.of(holders, h.ownerId) != h) {
            return false;
        }
        holders = Holders.without(holders, h);
        return true;
    }

    /** Under the lock: a snapshot of the live holds. */
    List<Hold> holdersLocked() {
        return Holders.list(holders);
    }

    /** Adds the held watchdog holds here to {@code batches}, by renewer (the watchdog's tick). */
    void addRenewable(Map<Object, List<Renewable>> batches) {
        lock.lock();
        try {
            for (Hold h : holdersLocked()) {
                if (h.grant.watchdog() && h.isHeld()) {
                    batches.computeIfAbsent(h.renewer(), k -> new ArrayList<>()).add(h);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The hold here whose grant is {@code grant} (the very instance), or {@code null}. */
    Hold holdOf(Grant grant) {
        lock.lock();
        try {
            for (Hold h : holdersLocked()) {
                if (h.grant == grant) {
                    return h;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot of the holds here (for close). */
    List<Hold> liveHolds() {
        lock.lock();
        try {
            return holdersLocked();
        } finally {
            lock.unlock();
        }
    }

    Hold liveThreadHold(String ownerId) {
        lock.lock();
        try {
            Hold h = holderLocked(ownerId);
            return h != null && h.threadOwned && h.isHeld() ? h : null;
        } finally {
            lock.unlock();
        }
    }

    enum UnlockResult { STILL_HELD, NOT_HELD }

    static final class LostUnlock {
        final Hold hold;

        LostUnlock(Hold hold) {
            this.hold = hold;
        }
    }

    /** Identity of a nameState: one per backend operation set and name. */
    record NameKey(RemoteLockOps ops, String name) {
    }

    static AcquireRequest request(LockEngine engine, String name, String ownerId, long leaseMillis, boolean watchdog,
                                  long deadlineNanos) {
        return new AcquireRequest(name, ownerId, leaseMillis, watchdog, deadlineNanos, engine.time);
    }
}
