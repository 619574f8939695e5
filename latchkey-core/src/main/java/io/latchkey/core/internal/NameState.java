package io.latchkey.core.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
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
 * The one local waiting machine of the engine: the state of one name of one backend operation set and kind in one
 * client, for every primitive. A lock ({@link LockKind}) keeps its holders here; a semaphore, a permit-expirable
 * semaphore and a latch ({@link CountKinds}) keep only their waiters. What differs per kind (the attempt, what a
 * success gives the waiter, the give-back) is the {@link WaitKind}; everything else is this machine, each job in its
 * own file: {@link WaitStart} starts a wait; {@link WaitAttempts} looks at the backend for the waiters there, one
 * attempt out per waiter, re-checks and the name's one subscription; {@link WaitEnds} ends a waiter by its
 * deadline, a cancel, an interrupt or the client's close, and gives back what a success that answers an abandoned
 * waiter took; {@link LockRelease} releases a lock's hold or hands it to the next local waiter; {@link CountHandOff}
 * passes a semaphore's released permits to local waiters. With a lock ops that waits itself
 * ({@link RemoteLockOps#acquire}), the request goes to the backend once ({@link BlockingAcquireAdapter}).
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>One FIFO {@link #queue} per name, kind and client. At most one queued waiter (the head) is at the backend
 *     ({@link #inflight}), with at most one attempt out. For an exclusive lock the head is only sent while no local
 *     owner holds the lock and no release is in flight: the backend could not grant it anyway; a shared lock's and a
 *     counted resource's head is sent whenever nothing is in flight, and the next head right after a success (more
 *     permits may be free).</li>
 * <li>Except for a {@linkplain RemoteLockOps#fair() fair} lock: every waiter is sent at once, beside the queue
 *     ({@link #bypassing}), so that it takes its own place in the backend's queue when it starts waiting (strict
 *     FIFO across clients), even while another thread of this client holds the lock; the queue stays empty and
 *     nothing is handed off. (A read lock's downgrade is sent beside the queue as well: the backend grants it at
 *     once.)</li>
 * <li>A latch's one success serves every waiter of the name.</li>
 * <li>A single look ({@code tryLock()}, {@code tryAcquire()}) is refused without a round trip when this client is
 *     busy with the name already: for a lock, when the head could not be sent now; for a counted resource, only
 *     when a blocked waiter of this client waits (two single looks with two free permits both succeed).</li>
 * <li>Local hand-off, at most {@link LockEngine#MAX_LOCAL_HAND_OFFS} times in a row, then a real release so that
 *     other clients' waiters get their turn: an exclusive lock released while a local waiter is queued is
 *     {@linkplain RemoteLockOps#handOff handed off} in one round trip, never free in between; a semaphore's released
 *     permits go to the local waiters that fit, in queue order.</li>
 * <li>Everything here is guarded by {@link #lock}, which is never held while calling the backend, completing a
 *     future or running a listener: backends may complete their futures on the calling thread.</li>
 * <li>An idle nameState stays in the engine's map ({@link #idle}) so that the next cycle on a hot name reuses it, but
 *     only while the watchdog runs and at most {@link LockEngine#MAX_IDLE_NAME_STATES} of them; a nameState still idle
 *     at two watchdog ticks in a row, or one that goes idle beyond that bound, removes itself ({@link #dead}); a
 *     caller that finds a dead nameState retries with a fresh one.</li>
 * </ul>
 *
 * <h2>What wakes a waiter</h2>
 * The backend's push on the name's subscription (taken on the first busy answer, closed once no waiter is at the
 * backend), the waiter's re-check timer (the backend's hint for a lock, {@code recheckMillis()} for a counted
 * resource), a local release (hand-off) or a success of the waiter ahead. A push during an attempt makes that
 * attempt look again at once when it answers busy, so a change between the backend's look and its answer is never
 * slept through.
 *
 * <h2>Deadlines, interruption, close</h2>
 * A queued waiter whose deadline passes ends at once; the waiter at the backend ends at once between attempts, but if
 * its attempt is out (or its first attempt has not answered yet) that answer decides: a short wait on a free
 * resource does not fail because the round trip was slower than the wait. That answer is bounded by the operation
 * timeout ({@link WaitEnds#onDeadline}): without it the waiter fails with
 * {@link io.latchkey.LockUnavailableException}, and a success that still comes is given back. An interrupt or a
 * cancelled future withdraws the waiter the same way; what a success that raced it took is given back before the
 * caller returns, so an interrupted, cancelled or timed-out acquire takes nothing. The client's close fails every
 * waiter; a success that answers after it is given back.
 *
 * <h2>Memory effects</h2>
 * Every change here happens under {@link #lock}, and a waiter's future completes after it: actions of a thread
 * before it releases a lock (or permits) happen-before actions of a local waiter served by that release.
 */
@SuppressWarnings("serial") // never serialized: package-private, engine-internal
final class NameState extends ReentrantLock {
    static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NameState.class);

    final LockEngine engine;
    final NameKey key;
    /** The lock ops, or {@code null} for a counted resource. */
    final RemoteLockOps ops;
    /** The count ops, or {@code null} for a lock. */
    final RemoteCountOps countOps;
    final WaitKind kind;
    final String name;
    /** Not exclusive: a shared lock or a counted resource; the head is sent whenever nothing is in flight. */
    final boolean shared;
    /** Every waiter is sent at once, none queues locally, nothing is handed off: see the class comment. */
    final boolean fair;
    /** Single attempts: this nameState waits, re-checks and withdraws itself (see {@link WaitAttempts}). */
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
        this.key = key;
        this.name = key.name();
        if (key.count() == null) {
            this.ops = (RemoteLockOps) key.ops();
            this.countOps = null;
            this.kind = LockKind.INSTANCE;
            this.shared = ops.shared();
            this.fair = ops.fair();
            this.single = ops.singleAttempts();
        } else {
            this.ops = null;
            this.countOps = (RemoteCountOps) key.ops();
            this.kind = CountKinds.of(key.count());
            this.shared = true;
            this.fair = false;
            this.single = true;
        }
    }

    // ---------------------------------------------------------------------------------------------- acquire

    /** Under the lock: the caller's live thread-owned hold, re-entered, or {@code null}. */
    Hold reenterLocked(String ownerId) {
        Hold h = holderLocked(ownerId);
        if (h != null && h.threadOwned() && h.isHeld()) {
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
        if (sendableNowLocked()) {
            // as pumpLocked would at once, without making a queue (64 bytes kept per held lock)
            w.state = Waiter.State.INFLIGHT;
            inflight = w;
            return w;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(4);
        }
        queue.add(w);
        return pumpLocked();
    }

    /**
     * Under the lock: whether a single look must be refused without a round trip, this client being busy with the name
     * already: a lock's head could not be sent now; a counted resource has a blocked waiter of this client (single
     * looks ahead do not refuse it).
     */
    boolean busyForOneLookLocked() {
        if (countOps == null) {
            return !sendableNowLocked();
        }
        if (inflight != null && inflight.waits && inflight.state == Waiter.State.INFLIGHT) {
            return true;
        }
        if (queue != null) {
            for (Waiter q : queue) {
                if (q.waits) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Under the lock: a new waiter would be sent now (nothing in flight or queued, nothing held if exclusive). */
    private boolean sendableNowLocked() {
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
                engine.nameStates.remove(key, this);
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
                engine.nameStates.remove(key, this);
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
            WaitAttempts.attempt(this, w);
        } else {
            BlockingAcquireAdapter.send(this, w);
        }
    }

    // ------------------------------------------------------------------------------ the jobs in their own files

    /** The backend answered {@code w}'s attempt, acquire or hand-off (see {@link WaitAnswers#settle}). */
    void onGrantResult(Waiter w, Object taken, Throwable e, boolean handOff) {
        WaitAnswers.settle(this, w, taken, e, handOff);
    }

    /** A push from the subscription (see {@link WaitAttempts#changed}). */
    void changed() {
        WaitAttempts.changed(this);
    }

    /** The waiter's wait time ran out (see {@link WaitEnds#onDeadline}). */
    void onDeadline(Waiter w) {
        WaitEnds.onDeadline(this, w);
    }

    /** The caller gave up on {@code w} (see {@link WaitEnds#cancel}). */
    void cancel(Waiter w) {
        WaitEnds.cancel(this, w);
    }

    /** Client close: every waiter fails with {@code failure} (see {@link WaitEnds#failAll}). */
    void failAll(RuntimeException failure) {
        WaitEnds.failAll(this, failure);
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
            if (removeHolderLocked(h) && h.threadOwned()) {
                putLostHoldLocked(h.ownerId(), h);
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
            if (h != null && h.threadOwned()) {
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
        if (Holders.of(holders, h.ownerId()) != h) {
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
            return h != null && h.threadOwned() && h.isHeld() ? h : null;
        } finally {
            lock.unlock();
        }
    }

    enum UnlockResult { STILL_HELD, NOT_HELD }

    /** {@code unlock()} of a hold that was lost: the caller reports the loss. */
    record LostUnlock(Hold hold) {
    }

    /**
     * Identity of a nameState: one per backend operation set, name and kind ({@code count} is {@code null} for a
     * lock, whose ops says plain, fair, read or write).
     */
    record NameKey(Object ops, String name, CountKind count) {
        NameKey(RemoteLockOps ops, String name) {
            this(ops, name, null);
        }

        NameKey(RemoteCountOps ops, String name, CountKind count) {
            this((Object) ops, name, java.util.Objects.requireNonNull(count, "count"));
        }
    }
}
