package io.latchkey.core.internal;

import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.internal.Waiter.State;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one local waiting machine of the engine: the state of one name of one backend operation set and kind in one
 * client, for every primitive, and every change of it. A lock ({@link LockKind}) keeps its holds here (in the base
 * class {@link NameHolds}); a semaphore, a permit-expirable semaphore and a latch ({@link CountKinds}) keep only their
 * waiters. What differs per kind is a {@link WaitKind}, a policy: it makes the attempt and says what a success gives.
 *
 * <h2>Events and transitions</h2>
 * Events: start ({@link WaitStart}), answer ({@link WaitAnswers#settle}), push ({@link WaitAttempts#changed}), re-check
 * and the next attempt ({@link #send}), deadline ({@link WaitEnds#onDeadline}), cancel ({@link #cancel}), release
 * ({@link #release}, {@link #onHoldLost}, {@link CountHandOff}) and close ({@link #failAll}). The package-private parts
 * that carry an event through its round trips ({@link WaitAttempts}, {@link WaitAnswers}, {@link WaitEnds},
 * {@link LockRelease}, {@link CountHandOff}, {@link BlockingAcquireAdapter} for a lock ops that waits itself) change
 * state only through the {@code ...Locked} transitions here and the waiter's own ({@link Waiter#moveTo}, whose allowed
 * moves {@link Waiter.State} writes once); every field is private.
 *
 * <h2>Invariants</h2>
 * Under the lock, between events ({@link #checkInvariants()}; the deterministic simulation checks them after every
 * event):
 * <ol>
 * <li>At most one queued waiter, the head, is at the backend ({@code inflight}), with at most one attempt out
 *     ({@link Waiter#attempting()}). The queue holds only {@code QUEUED} waiters with no attempt out, each once, never
 *     one at the backend.</li>
 * <li>Only a {@linkplain RemoteLockOps#fair() fair} lock's waiters and a read lock's downgrade are at the backend
 *     beside the queue ({@code bypassing}): every waiter of a fair lock is sent at once, to take its own place in the
 *     backend's queue (strict FIFO across clients); a fair lock queues nothing locally and hands nothing off.</li>
 * <li>A waiter at the backend is {@code INFLIGHT}, or {@code CANCELLED} or {@code HANDED} with its attempt still out,
 *     whose answer then decides and what it took is given back. A waiter's future is completed by the transition that
 *     ends it; a success that answers later is given back, never given to a second waiter.</li>
 * <li>An exclusive lock's head is in flight only while no local owner holds the lock and no release (nor give-back of
 *     a late grant) is in flight ({@code releasing}); a plain exclusive lock has at most one live hold here. A shared
 *     lock's and a counted resource's head is sent whenever nothing is in flight, and the next one right after a
 *     success (more permits may be free).</li>
 * <li>The holds: each live hold is its owner's only one, a thread-owned one counts at least one entry, a lost one
 *     is no longer live ({@link NameHolds}); a counted resource holds nothing here.</li>
 * <li>At most {@link LockEngine#MAX_LOCAL_HAND_OFFS} local hand-offs in a row, then a real release, so that other
 *     clients' waiters get their turn: an exclusive lock released while a local waiter is queued is
 *     {@linkplain RemoteLockOps#handOff handed off} in one round trip, never free in between; a semaphore's released
 *     permits go to the local waiters that fit, in queue order. A latch's one success serves every waiter.</li>
 * <li>An idle nameState (nothing held, lost, queued, in flight or released) may stay in the engine's map for reuse
 *     ({@code idle}) while the watchdog runs, at most {@link LockEngine#MAX_IDLE_NAME_STATES}; still idle at two
 *     watchdog ticks in a row, or beyond that bound, it leaves the map ({@code dead}) and never changes again; a
 *     caller that finds it dead retries with a fresh one.</li>
 * </ol>
 * A waiter that leaves gives up its place in the server's queue after its answer ({@link WaitAttempts#withdraw});
 * while such a withdrawal is on its way, the name's attempts wait for it, in the order they came, at most the operation
 * timeout, so that no look finds this client's own place that is on its way out still ahead of it.
 * A single look ({@code tryLock()}, {@code tryAcquire()}) is refused without a round trip when this client is busy
 * with the name already: for a lock, when the head could not be sent now; for a counted resource, only when a blocked
 * waiter of this client waits. Everything is guarded by this object (a {@link ReentrantLock}: one object less per held
 * name), never held while calling the backend, completing a future or running a listener.
 *
 * <h2>What wakes a waiter; deadlines, interruption, close</h2>
 * The backend's push on the name's one subscription (taken on the first busy answer, closed once no waiter is at the
 * backend), its re-check timer (the backend's hint), a local release (hand-off) or a success of the waiter ahead; an
 * attempt that a push overlapped looks again at once. A queued waiter whose deadline passes ends at once; the waiter
 * at the backend ends at once between attempts, but an attempt that is out (or the first one) decides, bounded by the
 * operation timeout ({@link WaitEnds#onDeadline}). An interrupt or a cancel withdraws the waiter the same way; what a
 * success that raced it took is given back before the caller returns. The client's close fails every waiter.
 * Actions of a thread before it releases a lock (or permits) happen-before those of a local waiter it serves.
 */
@SuppressWarnings("serial") // never serialized: package-private, engine-internal
final class NameState extends NameWaiters {
    static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NameState.class);

    final LockEngine engine;
    final NameKey key;
    /** The lock ops, or {@code null} for a counted resource. */
    final RemoteLockOps ops;
    /** The count ops, or {@code null} for a lock. */
    final RemoteCountOps countOps;
    final WaitKind<?> kind;
    final String name;
    /** Not exclusive: a shared lock or a counted resource; the head is sent whenever nothing is in flight. */
    final boolean shared;
    /** Every waiter is sent at once, none queues locally, nothing is handed off. */
    final boolean fair;
    /** Single attempts: this nameState waits, re-checks and withdraws itself (see {@link WaitAttempts}). */
    final boolean single;

    // guarded by this lock
    /** Releases (and give-backs of an exclusive lock's late grants) in flight. */
    private int releasing;
    private int handOffStreak;
    private boolean dead;
    private boolean idle;
    /** A watchdog sweep found it idle; still idle at the next sweep, it is dropped. */
    private boolean idleSeen;
    /** Single attempts: the subscription to the name's changes, while a waiter is at the backend. */
    private ChangeSubscription subscription;
    /** Single attempts: changes pushed so far; an attempt that overlapped one looks again at once. */
    private int changes;

    NameState(LockEngine engine, NameKey key) {
        this.engine = engine;
        this.key = key;
        this.name = key.name();
        if (key instanceof NameKey.Lock lock) {
            this.ops = lock.ops();
            this.countOps = null;
            this.kind = LockKind.INSTANCE;
            this.shared = ops.shared();
            this.fair = ops.fair();
            this.single = ops.singleAttempts();
        } else {
            NameKey.Count<?> count = (NameKey.Count<?>) key;
            this.ops = null;
            this.countOps = count.ops();
            this.kind = count.kind();
            this.shared = true;
            this.fair = false;
            this.single = true;
        }
    }

    // ---------------------------------------------------------------------------------------------- start

    boolean deadLocked() {
        return dead;
    }

    @Override
    boolean headMayGoLocked() {
        return shared || !heldLocked() && releasing == 0;
    }

    @Override
    boolean besideQueue(Waiter<?> w) {
        return fair || w.bypass();
    }

    /**
     * Under the lock: a withdrawal of a place in the server's queue is sent ({@link WaitAttempts#withdraw}); until it
     * answers, the name's attempts are held back ({@link #holdBackLocked}), and an idle nameState is in use again.
     * {@code false} (not counted) on a dead nameState: a new one serves the name.
     */
    boolean withdrawingLocked() {
        if (dead) {
            return false;
        }
        reviveLocked();
        withdrawalSentLocked();
        return true;
    }

    /** A withdrawal answered; the attempts held back, to send in order, if it was the last one (else {@code null}). */
    List<Runnable> withdrawAnswered() {
        lock();
        try {
            List<Runnable> held = withdrawalAnsweredLocked();
            idleCheckLocked();
            return held;
        } finally {
            unlock();
        }
    }

    /** The attempts held back, to send in order ({@code null} if none): the bound on their wait ran out. */
    List<Runnable> takeHeldBack() {
        lock();
        try {
            return takeHeldBackLocked();
        } finally {
            unlock();
        }
    }

    /** Under the lock: whether a single look must be refused without a round trip (see the class comment). */
    boolean busyForOneLookLocked() {
        return countOps == null ? !sendableNowLocked() : blockedWaiterLocked();
    }

    private boolean emptyLocked() {
        return !heldLocked() && lostHoldsEmptyLocked() && queueEmptyLocked() && !atBackendLocked() && releasing == 0
                && !withdrawingNowLocked();
    }

    /** Under the lock: if nothing is held, waited for or in flight, keeps this nameState for reuse or forgets it. */
    @Override
    void idleCheckLocked() {
        if (!dead && !idle && emptyLocked()) {
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
            handOffStreak = 0; // as a fresh nameState would be (a loss can leave a streak behind)
            engine.idleNameStates.decrementAndGet();
        }
    }

    /** A watchdog sweep (or close): drops this nameState if it was idle at the previous sweep too ({@code now}: at once). */
    void sweep(boolean now) {
        lock();
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
            unlock();
        }
    }

    // ------------------------------------------------------------------------- transitions of waiters, under the lock

    /** A waiter got what an answer took; {@code handOff}: by a local hand-off, which continues the streak. */
    void grantedLocked(boolean handOff) {
        if (!handOff) {
            handOffStreak = 0;
        }
    }

    /** What an answer took for a waiter that left goes back; an exclusive lock sends no head until it is back. */
    void givingBackLocked() {
        if (!shared) {
            releasing++;
        }
    }

    /** A release, or a give-back counted by {@link #givingBackLocked}, answered. */
    void releasedLocked() {
        releasing--;
    }

    int changesLocked() {
        return changes;
    }

    /** A push: returns the push count now; adds to {@code wake} every waiter at the backend not looking now. */
    int pushedLocked(List<Waiter<?>> wake) {
        notLookingLocked(wake);
        return ++changes;
    }

    /** The name's one subscription, made on first use. */
    ChangeSubscription subscriptionLocked() {
        if (subscription == null) {
            subscription = new ChangeSubscription();
        }
        return subscription;
    }

    /** The subscription to close, once no waiter of this name is at the backend; {@code null} while one is. */
    CompletableFuture<RemoteCountOps.Subscription> unusedSubscriptionLocked() {
        if (subscription == null || !subscription.activeLocked() || atBackendLocked()) {
            return null;
        }
        return subscription.takeLocked();
    }

    /**
     * {@code h} is released: returns the next local waiter, now in flight, to hand the lock to in one round trip (an
     * exclusive lock with a queued waiter, within the streak), or {@code null} for a release at the backend.
     */
    Waiter<?> releaseHoldLocked(Hold h) {
        removeHolderLocked(h);
        Waiter<?> next = !shared && !fair && ops.supportsHandOff() && handOffStreak < LockEngine.MAX_LOCAL_HAND_OFFS
                && releasing == 0 ? handOffHeadLocked() : null;
        if (next != null) {
            handOffStreak++;
        } else {
            handOffStreak = 0;
            releasing++;
        }
        return next;
    }

    /** A hand-off to {@code next} did not take ({@code e}: no answer); returns whether it queued again at the head. */
    boolean handOffFailedLocked(Waiter<?> next, Throwable e) {
        handOffStreak = 0;
        return requeueLocked(next, e);
    }

    /**
     * A semaphore's {@code permits} released by this client go to its waiters that fit, added to {@code served}
     * ({@link #servePermitsLocked}); returns what is left for the backend (all of it after
     * {@link LockEngine#MAX_LOCAL_HAND_OFFS} hand-offs in a row).
     */
    int handPermitsLocked(int permits, List<Waiter<?>> served) {
        if (dead || handOffStreak >= LockEngine.MAX_LOCAL_HAND_OFFS) {
            handOffStreak = 0;
            return permits;
        }
        int left = servePermitsLocked(permits, served);
        handOffStreak = served.isEmpty() ? 0 : handOffStreak + 1;
        return left;
    }

    // ---------------------------------------------------------------------------------------------- events

    /** Re-check, or the next head: sends {@code w}'s attempt (or blocking acquire); without holding the lock. */
    void send(Waiter<?> w) {
        if (w == null) {
            return;
        }
        if (single) {
            WaitAttempts.attempt(this, w);
        } else {
            BlockingAcquireAdapter.send(this, w);
        }
    }

    /** Cancel: the caller gave up on {@code w} ({@link WaitEnds#cancel}). */
    void cancel(Waiter<?> w) {
        WaitEnds.cancel(this, w);
    }

    /** Close: every waiter fails with {@code failure} ({@link WaitEnds#failAll}). */
    void failAll(RuntimeException failure) {
        WaitEnds.failAll(this, failure);
    }

    /** Release of {@code h} ({@link LockRelease#release}). */
    CompletableFuture<Void> release(Hold h) {
        return LockRelease.release(this, h);
    }

    /** Release of a hold already known lost ({@link LockRelease#releaseLost}). */
    CompletableFuture<Void> releaseLost(Hold h) {
        return LockRelease.releaseLost(this, h);
    }

    /** A live hold was lost: it no longer blocks local waiters. */
    void onHoldLost(Hold h) {
        Waiter<?> next;
        lock();
        try {
            lostLocked(h);
            next = pumpLocked();
            idleCheckLocked();
        } finally {
            unlock();
        }
        send(next);
    }

    // ---------------------------------------------------------------------------------------------- invariants

    /** Checks the invariants of the class comment; returns the first one broken, or {@code null}. For tests. */
    String checkInvariants() {
        lock();
        try {
            String broken = fair && inflightLocked() ? "a fair lock has a head in flight" : checkWaitersLocked(single);
            if (broken == null) {
                broken = countOps != null && (heldLocked() || !lostHoldsEmptyLocked()) ? "a counted resource holds"
                        : !shared && !fair && severalHoldsLocked() ? "an exclusive lock has several holds"
                        : checkHoldsLocked();
            }
            if (broken == null && (releasing < 0 || handOffStreak < 0 || handOffStreak > LockEngine.MAX_LOCAL_HAND_OFFS
                    || !shared && inflightLocked() && (heldLocked() || releasing > 0))) {
                broken = "an exclusive head is in flight while held or releasing, or a count is out of range";
            }
            if (broken == null && ((idle || dead) && !emptyLocked() || idle && dead
                    || dead && engine.nameStates.get(key) == this)) {
                broken = "idle or dead while in use, or dead and still in the engine's map";
            }
            return broken == null ? null : broken + ": " + describeLocked();
        } finally {
            unlock();
        }
    }

    /** Under the lock: the state, for test failures. */
    String describeLocked() {
        return String.format("[%s: idle=%s dead=%s %s %s releasing=%d streak=%d]", key, idle, dead,
                describeHoldsLocked(), describeWaitersLocked(), releasing, handOffStreak);
    }
}
