package io.latchkey.core.internal;

import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local state of one lock name of one {@link RemoteLockOps} in one client: who holds it here, who waits here,
 * and which requests are at the backend.
 *
 * <h2>Waiting</h2>
 * With an ops that answers {@linkplain RemoteLockOps#singleAttempts() single attempts} this class does the waiting: the
 * waiter at the backend ({@link #inflight}, or each of {@link #bypassing}) has at most one attempt out at a time
 * ({@link Waiter#attempting}). A busy or queued answer keeps the waiter there with a re-check timer at the backend's
 * hint (at most {@link #RECHECK_FALLBACK_NANOS}) and the name's one {@linkplain RemoteLockOps#subscribe subscription}
 * (taken on the first busy answer, closed when no waiter of the name is at the backend). What wakes a waiter: a push
 * from the subscription (or the subscription taking effect), its re-check, or, when the attempt that was out overlapped
 * a push, that attempt's answer (it looks again at once); a local release pumps the next local waiter or hands the
 * lock to it. Its one deadline timer ({@link Waiter#timer}) ends a waiter between attempts at once; one whose attempt
 * is out (or whose first attempt has not answered yet) ends with that attempt's answer, bounded by the operation
 * timeout ({@link #onNoAnswer}). A cancel or an interrupt does the same, and a grant that answers an abandoned waiter
 * is given back ({@link #releaseLateGrant}). A waiter that leaves withdraws its place in the server's queue
 * ({@link RemoteLockOps#withdraw}); a fair waiter also after a failed attempt, which may have made one. With an ops
 * that waits itself ({@link RemoteLockOps#acquire}), the request goes to the backend once and the backend does all
 * this; only the deadline's backstop and the give-back stay here.
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
    private static final Logger log = LoggerFactory.getLogger(NameState.class);

    final LockEngine engine;
    final RemoteLockOps ops;
    final String name;
    final boolean shared;
    /** Every waiter is sent at once, none queues locally, nothing is handed off: see the class comment. */
    final boolean fair;
    /** The ops answers single attempts: this nameState waits, re-checks and withdraws itself (see {@link #attempt}). */
    final boolean single;
    /**
     * Guards everything below. The name state is its own lock (it extends {@link ReentrantLock}): one object less
     * per held lock name; nothing outside the engine sees a name state.
     */
    final ReentrantLock lock = this;

    // everything below is guarded by lock
    /** Live holds by owner id: at most one for an exclusive lock. */
    /**
     * Live holds: {@code null} (none), one {@link Hold} (every exclusive lock, and most shared ones), or a
     * {@code HashMap} by owner id (several readers of this client): a held lock costs no map. Read and written only
     * through the {@code holder*} methods below.
     */
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
    private ChangeSubscription subscription;
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

    private Waiter pumpLocked() {
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

    private boolean queueEmptyLocked() {
        return queue == null || queue.isEmpty();
    }

    private void removeLostHoldLocked(String ownerId) {
        if (lostHolds != null) {
            lostHolds.remove(ownerId);
        }
    }

    private void putLostHoldLocked(String ownerId, Hold h) {
        if (lostHolds == null) {
            lostHolds = new HashMap<>(2);
        }
        lostHolds.put(ownerId, h);
    }

    private void removeBypassingLocked(Waiter w) {
        if (bypassing != null) {
            bypassing.remove(w);
        }
    }

    /** Under the lock: {@code w} (between attempts) is no longer at the backend. */
    private void leaveBackendLocked(Waiter w) {
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
            attempt(w);
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
            releaseLateGrant(w, lateGrant);
        }
        if (done != null) {
            Trampoline.run(engine.callbacks, done);
        }
        send(next);
    }

    // ------------------------------------------------------------------------------------- single attempts

    /**
     * One attempt for {@code w} (the head at the backend, or any waiter of a fair lock), unless one is out already or
     * {@code w} is no longer waiting at the backend. Must be called without holding the lock.
     */
    private void attempt(Waiter w) {
        int epoch;
        String entry;
        lock.lock();
        try {
            if (w.state != Waiter.State.INFLIGHT || w.attempting) {
                return;
            }
            w.attempting = true;
            epoch = changes;
            entry = w.entry;
        } finally {
            lock.unlock();
        }
        CompletableFuture<RemoteLockOps.Attempt> f;
        try {
            f = ops.tryAcquire(w.request, entry);
            if (f == null) {
                f = CompletableFuture.failedFuture(new IllegalStateException("backend returned no future"));
            }
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        // a backend without I/O answers on this stack: a run of answers continues on the callback executor past the
        // trampoline's bound
        f.whenComplete((a, e) -> Trampoline.run(engine.callbacks, () -> attempted(w, epoch, a, e)));
    }

    /** The backend answered an attempt for {@code w}. */
    private void attempted(Waiter w, int epoch, RemoteLockOps.Attempt a, Throwable e) {
        CompletableFuture<io.latchkey.core.RemoteCountOps.Subscription> subscribeNow = null;
        boolean again = false;
        boolean over = false;
        lock.lock();
        try {
            w.looked = true;
            if (e == null && a != null && !a.isGranted()) {
                // a grant or a failure keeps the waiter "attempting" until onGrantResult has settled it, so that its
                // deadline cannot end it in between and drop the grant
                w.attempting = false;
                if (a.entry() != null) {
                    w.entry = a.entry();
                }
                if (w.state != Waiter.State.INFLIGHT || w.request.isExpired()) {
                    // cancelled, abandoned, or its deadline passed: this attempt was its last
                    over = true;
                } else if (changes != epoch) {
                    again = true;
                } else {
                    long hint = a.recheckNanos() <= 0 ? RECHECK_FALLBACK_NANOS
                            : Math.min(a.recheckNanos(), RECHECK_FALLBACK_NANOS);
                    w.recheck = engine.watchdog.schedule(() -> attempt(w), Math.max(MIN_RECHECK_NANOS, hint));
                    if (subscription == null) {
                        subscription = new ChangeSubscription();
                    }
                    subscribeNow = subscription.beginLocked();
                }
            }
        } finally {
            lock.unlock();
        }
        if (subscribeNow != null) {
            subscription.subscribe(lock, () -> false, subscribeNow, () -> ops.subscribe(name, this::changed),
                    this::changed, name);
        }
        if (again) {
            attempt(w);
            return;
        }
        if (e != null || a == null || a.isGranted()) {
            if (e != null || a == null) {
                // a failed attempt may have made an entry the engine never learned of: a fair lock withdraws anyway
                withdraw(w, fair);
            }
            onGrantResult(w, a == null ? null : a.grant(), e != null ? e
                    : a == null ? new IllegalStateException("backend answered no attempt") : null, false);
            closeUnusedSubscription();
        } else if (over) {
            withdraw(w, false);
            onGrantResult(w, null, null, false);
            closeUnusedSubscription();
        }
    }

    /** Single attempts: at most this long between looks without a push (the engine's bound on a backend's hint). */
    static final long RECHECK_FALLBACK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long MIN_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A push from the subscription: every waiter at the backend that is not looking now looks again. */
    void changed() {
        List<Waiter> wake = new ArrayList<>(2);
        lock.lock();
        try {
            changes++;
            if (inflight != null && inflight.state == Waiter.State.INFLIGHT && !inflight.attempting) {
                wake.add(inflight);
            }
            if (bypassing != null) {
                for (Waiter w : bypassing) {
                    if (w.state == Waiter.State.INFLIGHT && !w.attempting) {
                        wake.add(w);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        for (Waiter w : wake) {
            ScheduledFuture<?> r = w.recheck;
            if (r != null) {
                r.cancel(false);
            }
            attempt(w);
        }
    }

    /** Closes the subscription once no waiter of this name is at the backend; outside the lock. */
    private void closeUnusedSubscription() {
        CompletableFuture<io.latchkey.core.RemoteCountOps.Subscription> s;
        lock.lock();
        try {
            if (subscription == null || !subscription.activeLocked() || inflight != null
                    || bypassing != null && !bypassing.isEmpty()) {
                return;
            }
            s = subscription.takeLocked();
        } finally {
            lock.unlock();
        }
        ChangeSubscription.close(s);
    }

    /**
     * Gives up {@code w}'s place in the server's queue, if it has one (best effort: the backend retries); with
     * {@code unknown}, also when the engine knows of none (an attempt failed: it may have made one).
     */
    private void withdraw(Waiter w, boolean unknown) {
        String entry;
        lock.lock();
        try {
            entry = w.entry;
            w.entry = null;
        } finally {
            lock.unlock();
        }
        ScheduledFuture<?> r = w.recheck;
        if (r != null) {
            r.cancel(false);
        }
        if (entry == null && !unknown) {
            return;
        }
        CompletableFuture<Void> f;
        try {
            f = ops.withdraw(w.request, entry);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        if (f != null) {
            f.whenComplete((v, e) -> {
                if (e != null) {
                    log.debug("withdrawing the queue entry {} of lock '{}' failed", entry, name, e);
                }
            });
        }
    }

    /** A grant for a waiter nobody waits for any more: give it back so that no lock is left behind. */
    private void releaseLateGrant(Waiter w, Grant g) {
        boolean counted = w.state == Waiter.State.CANCELLED && !shared;
        log.debug("releasing late grant {} of an abandoned acquire", g);
        CompletableFuture<Boolean> f;
        try {
            f = ops.release(g);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((ok, e) -> {
            if (e != null) {
                log.debug("could not release late grant {}; it expires with its lease", g, e);
            }
            Waiter next;
            lock.lock();
            try {
                if (counted) {
                    releasing--;
                }
                next = pumpLocked();
                idleCheckLocked();
            } finally {
                lock.unlock();
            }
            Trampoline.run(engine.callbacks, () -> w.future.complete(null));
            send(next);
        });
    }

    /** The waiter's wait time ran out: a queued waiter gives up; an in-flight one gets a grace period. */
    void onDeadline(Waiter w) {
        boolean timedOut = false;
        boolean backstop = false;
        Waiter next = null;
        lock.lock();
        try {
            if (w.state == Waiter.State.QUEUED) {
                queue.remove(w);
                w.state = Waiter.State.TIMED_OUT;
                timedOut = true;
                idleCheckLocked();
            } else if (w.state == Waiter.State.INFLIGHT && single && !w.attempting && w.looked) {
                // waiting between attempts: over now (an attempt that is out decides instead, bounded below; so
                // does the first one, about to be sent: a wait never ends without one look)
                w.state = Waiter.State.TIMED_OUT;
                leaveBackendLocked(w);
                timedOut = true;
                next = pumpLocked();
                idleCheckLocked();
            } else if (w.state == Waiter.State.INFLIGHT) {
                backstop = true;
            }
        } finally {
            lock.unlock();
        }
        if (timedOut) {
            if (single) {
                withdraw(w, false);
                closeUnusedSubscription();
            }
            engine.timedOut(ops, name, engine.time.nanoTime() - w.startNanos);
            w.future.complete(null);
            send(next);
        } else if (backstop) {
            w.timer = engine.watchdog.schedule(() -> onNoAnswer(w), engine.remoteTimeoutNanos());
        }
    }

    /** The backend did not answer an acquire within the operation timeout after its deadline. */
    private void onNoAnswer(Waiter w) {
        Waiter next;
        lock.lock();
        try {
            if (w.state != Waiter.State.INFLIGHT) {
                return;
            }
            w.state = Waiter.State.ABANDONED;
            if (inflight == w) {
                inflight = null;
            }
            removeBypassingLocked(w);
            next = pumpLocked();
        } finally {
            lock.unlock();
        }
        w.request.cancel();
        long waited = engine.time.nanoTime() - w.startNanos;
        w.future.completeExceptionally(new LockUnavailableException(String.format(
                "acquire of lock '%s' got no answer from the %s backend within %d ms after its wait time "
                        + "(waited %d ms in all)", name, engine.backendName,
                TimeUnit.NANOSECONDS.toMillis(engine.remoteTimeoutNanos()), TimeUnit.NANOSECONDS.toMillis(waited))));
        send(next);
    }

    /**
     * The caller gave up on {@code w} (interrupt, cancelled future). A queued waiter leaves at once; an in-flight
     * one is cancelled at the backend and its future completes with {@code null} once the backend has answered
     * (and any grant it still made was released). A waiter already granted is left alone: the caller then owns
     * the hold in its future and must release it.
     */
    void cancel(Waiter w) {
        boolean removed = false;
        boolean remote = false;
        Waiter next = null;
        lock.lock();
        try {
            if (w.state == Waiter.State.QUEUED) {
                queue.remove(w);
                w.state = Waiter.State.CANCELLED;
                removed = true;
                idleCheckLocked();
            } else if (w.state == Waiter.State.INFLIGHT && single && !w.attempting) {
                // waiting between attempts: leaves now (an attempt that is out decides instead: a grant goes back)
                w.state = Waiter.State.CANCELLED;
                leaveBackendLocked(w);
                removed = true;
                next = pumpLocked();
                idleCheckLocked();
            } else if (w.state == Waiter.State.INFLIGHT) {
                w.state = Waiter.State.CANCELLED;
                remote = true;
            }
        } finally {
            lock.unlock();
        }
        if (removed) {
            w.cancelTimer();
            if (single) {
                withdraw(w, false);
                closeUnusedSubscription();
            }
            w.future.complete(null);
            send(next);
        } else if (remote) {
            w.request.cancel();
        }
    }

    /** Client close: every waiter fails with {@code failure}; requests at the backend are cancelled. */
    void failAll(RuntimeException failure) {
        List<Waiter> failed = new ArrayList<>();
        List<Waiter> looking = new ArrayList<>(1);
        lock.lock();
        try {
            if (queue != null) {
                for (Waiter w : queue) {
                    w.state = Waiter.State.FAILED;
                    failed.add(w);
                }
                queue.clear();
            }
            if (inflight != null && inflight.state == Waiter.State.INFLIGHT) {
                inflight.state = Waiter.State.ABANDONED;
                failed.add(inflight);
            }
            inflight = null;
            if (bypassing != null) {
                for (Waiter w : bypassing) {
                    if (w.state == Waiter.State.INFLIGHT) {
                        w.state = Waiter.State.ABANDONED;
                        failed.add(w);
                    }
                }
                bypassing.clear();
            }
            for (Waiter w : failed) {
                if (w.attempting) {
                    looking.add(w);
                }
            }
            idleCheckLocked();
        } finally {
            lock.unlock();
        }
        for (Waiter w : failed) {
            w.cancelTimer();
            w.request.cancel();
            if (single && !looking.contains(w)) {
                withdraw(w, false); // one that is looking now withdraws when its answer comes
            }
            w.future.completeExceptionally(failure);
        }
        if (single) {
            closeUnusedSubscription();
        }
    }

    // ---------------------------------------------------------------------------------------------- release

    /**
     * Releases {@code h} (its count already at zero, or a lease): hands the lock to the next local waiter, or
     * releases it at the backend. The future fails with {@link LockLostException} if the lock had been lost.
     */
    CompletableFuture<Void> release(Hold h) {
        if (!h.casState(Hold.State.HELD, Hold.State.RELEASING)) {
            Hold.State s = h.state();
            if (s == Hold.State.LOST) {
                return releaseLost(h);
            }
            return CompletableFuture.completedFuture(null);
        }
        // stop renewing BEFORE the remote release, so that no renewal can outlive it
        engine.forget(h);
        Waiter next = null;
        lock.lock();
        try {
            removeHolderLocked(h);
            if (!shared && !fair && ops.supportsHandOff() && handOffStreak < LockEngine.MAX_LOCAL_HAND_OFFS
                    && inflight == null && releasing == 0 && !queueEmptyLocked()) {
                next = queue.poll();
                next.state = Waiter.State.INFLIGHT;
                // the hand-off is its attempt: its deadline or a cancel waits for the answer
                next.attempting = true;
                inflight = next;
                handOffStreak++;
            } else {
                handOffStreak = 0;
                releasing++;
            }
        } finally {
            lock.unlock();
        }
        return next != null ? handOff(h, next) : remoteRelease(h);
    }

    private CompletableFuture<Void> remoteRelease(Hold h) {
        CompletableFuture<Boolean> f;
        try {
            f = ops.release(h.grant);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((ok, e) -> {
            Waiter next;
            lock.lock();
            try {
                releasing--;
                next = pumpLocked();
                idleCheckLocked();
            } finally {
                lock.unlock();
            }
            if (e != null) {
                // no longer renewed: the server lets it expire with its lease
                h.setState(Hold.State.RELEASED);
                Throwable cause = LockEngine.unwrap(e);
                Trampoline.run(engine.callbacks, () -> result.completeExceptionally(cause));
            } else if (!Boolean.TRUE.equals(ok)) {
                h.lostAtRelease("the backend no longer had it when it was released");
                Trampoline.run(engine.callbacks, () -> result.completeExceptionally(h.lostException("release")));
            } else {
                h.setState(Hold.State.RELEASED);
                engine.events.released(name, engine.time.nanoTime() - h.acquiredAtNanos);
                Trampoline.run(engine.callbacks, () -> result.complete(null));
            }
            send(next);
        });
        return result;
    }

    private CompletableFuture<Void> handOff(Hold h, Waiter next) {
        CompletableFuture<Grant> f;
        try {
            f = ops.handOff(h.grant, next.request);
            if (f == null) {
                f = CompletableFuture.failedFuture(new IllegalStateException("backend returned no future"));
            }
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((g, e) -> {
            lock.lock();
            try {
                next.attempting = false;
            } finally {
                lock.unlock();
            }
            if (e == null && g != null) {
                h.setState(Hold.State.RELEASED);
                engine.events.released(name, engine.time.nanoTime() - h.acquiredAtNanos);
                onGrantResult(next, g, null, true);
                Trampoline.run(engine.callbacks, () -> result.complete(null));
                return;
            }
            // the next waiter goes back to the head of the queue and acquires normally
            Waiter send;
            boolean cancelled = false;
            lock.lock();
            try {
                if (inflight == next) {
                    inflight = null;
                }
                handOffStreak = 0;
                if (next.state == Waiter.State.INFLIGHT) {
                    next.state = Waiter.State.QUEUED;
                    if (queue == null) {
                        queue = new ArrayDeque<>(4);
                    }
                    queue.addFirst(next);
                } else if (next.state == Waiter.State.CANCELLED) {
                    cancelled = true;
                }
                send = pumpLocked();
                idleCheckLocked();
            } finally {
                lock.unlock();
            }
            if (cancelled) {
                Trampoline.run(engine.callbacks, () -> next.future.complete(null));
            }
            if (e != null) {
                h.setState(Hold.State.RELEASED);
                Throwable cause = LockEngine.unwrap(e);
                Trampoline.run(engine.callbacks, () -> result.completeExceptionally(cause));
            } else {
                h.lostAtRelease("the backend no longer had it when it was handed off");
                Trampoline.run(engine.callbacks, () -> result.completeExceptionally(h.lostException("release")));
            }
            send(send);
        });
        return result;
    }

    /**
     * Release of a hold already known lost: clean up remotely once (best effort), then report the loss. The loss
     * is reported when the clean-up answered or after half the operation timeout, whichever comes first: a backend
     * still reconnecting after the outage that lost the hold must not turn a known loss into
     * {@code LockUnavailableException}. A later clean-up is harmless: releases only ever touch the exact grant.
     */
    CompletableFuture<Void> releaseLost(Hold h) {
        if (engine.isClosed() || !h.claimCleanUp()) {
            return CompletableFuture.failedFuture(h.lostException("release"));
        }
        CompletableFuture<Boolean> f;
        try {
            f = ops.release(h.grant);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((ok, e) -> {
            if (e != null) {
                log.debug("clean-up release of lost lock '{}' failed", name, e);
            }
            result.completeExceptionally(h.lostException("release"));
        });
        if (!result.isDone()) {
            ScheduledFuture<?> bound = engine.watchdog.schedule(
                    () -> result.completeExceptionally(h.lostException("release")), engine.remoteTimeoutNanos() / 2);
            if (bound == null) {
                result.completeExceptionally(h.lostException("release")); // closing
            } else {
                result.whenComplete((v, e) -> bound.cancel(false));
            }
        }
        return result;
    }

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
        Object hs = holders;
        if (hs instanceof Hold h) {
            return h.ownerId.equals(ownerId) ? h : null;
        }
        return hs == null ? null : ((HashMap<?, ?>) hs).get(ownerId) instanceof Hold h ? h : null;
    }

    /** Under the lock: {@code h} becomes its owner's live hold (replacing any earlier one of that owner). */
    @SuppressWarnings("unchecked")
    private void putHolderLocked(Hold h) {
        Object hs = holders;
        if (hs == null || hs instanceof Hold one && one.ownerId.equals(h.ownerId)) {
            holders = h;
        } else if (hs instanceof Hold one) {
            HashMap<String, Hold> map = new HashMap<>(4);
            map.put(one.ownerId, one);
            map.put(h.ownerId, h);
            holders = map;
        } else {
            ((HashMap<String, Hold>) hs).put(h.ownerId, h);
        }
    }

    /** Under the lock: removes {@code h} if it is its owner's live hold; returns whether it was. */
    private boolean removeHolderLocked(Hold h) {
        Object hs = holders;
        if (hs == h) {
            holders = null;
            return true;
        }
        if (hs instanceof HashMap<?, ?> map && map.remove(h.ownerId, h)) {
            if (map.isEmpty()) {
                holders = null;
            } else if (map.size() == 1) {
                holders = map.values().iterator().next();
            }
            return true;
        }
        return false;
    }

    /** Under the lock: a snapshot of the live holds. */
    @SuppressWarnings("unchecked")
    List<Hold> holdersLocked() {
        Object hs = holders;
        if (hs == null) {
            return List.of();
        }
        if (hs instanceof Hold h) {
            return List.of(h);
        }
        return new ArrayList<>(((HashMap<String, Hold>) hs).values());
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
