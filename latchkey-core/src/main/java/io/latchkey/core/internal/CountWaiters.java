package io.latchkey.core.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The local half of waiting for one counted resource (a semaphore's permits, a permit-expirable semaphore's
 * permits, a latch reaching zero) of one name in one client: a FIFO queue of waiting threads, at most ONE remote
 * attempt at a time (for the head of the queue; for a latch, for all of them), one {@linkplain
 * RemoteCountOps#subscribe subscription} to the backend's wake-ups while anyone waits, and a re-check every
 * {@link RemoteCountOps#recheckMillis()} as the fallback.
 *
 * <h2>What wakes a waiter</h2>
 * A wake-up from the subscription (or the re-check, or the subscription becoming ready) starts an attempt unless
 * one is in flight; a wake-up during an attempt makes a failed attempt run again at once, so a change between
 * the backend's look and its answer is never slept through. A granted attempt completes the head and the next
 * head is tried at once (more permits may be free); a latch found open completes every waiter.
 *
 * <h2>Deadlines, interruption, close</h2>
 * A waiter whose deadline passes (a timer on the watchdog thread) or whose thread is interrupted or whose future is
 * cancelled ({@link #abandon}) leaves the queue and completes with {@code null}. If an attempt made for it is out at
 * that moment, that attempt's answer decides instead (bounded by the operation timeout): a deadline then ends with
 * what it found (so a short wait on a free resource does not fail because the round trip was slower than the wait),
 * and an interrupted or cancelled waiter gives back what it took ({@link #undo}) before it returns. So no permit is
 * ever missing after a call that took nothing has returned. {@link #failAll} (client close) fails every waiter; a
 * grant that answers after it is given back.
 *
 * <p>What an attempt asks and what it takes, per kind, is {@link CountKinds}; the caller's side of the wait (block,
 * or a future; give back what raced a give-up) is {@link CallerWaits}, shared with locks.
 *
 * <p>Thread-safe. The lock guards only local state: no remote call, no completion of a caller's future and no
 * subscription close is made while it is held.
 */
final class CountWaiters {
    /**
     * One queue's key. The kind says what an attempt does and what its success means: {@link CountKind#SEMAPHORE},
     * {@link RemoteCountOps#tryTake}, the result is {@code Boolean.TRUE}; {@link CountKind#PERMITS},
     * {@link RemoteCountOps#tryLease}, the result is the {@link Grant}; {@link CountKind#LATCH},
     * {@link RemoteCountOps#getCount} is 0, the result is {@code Boolean.TRUE} for every waiter.
     */
    record Key(RemoteCountOps ops, String name, CountKind kind) {
    }

    /** One waiting call. Its {@link #result} completes with the attempt's result, {@code null}, or exceptionally. */
    static final class Waiter {
        final int permits;
        final long leaseMillis;
        final boolean watchdog;
        final long deadlineNanos;
        final boolean waits;
        final CompletableFuture<Object> result = new CompletableFuture<>();
        volatile ScheduledFuture<?> timer;
        // guarded by the CountWaiters' lock
        /** The deadline passed, or the caller gave up, while an attempt made for this waiter was out: its answer decides. */
        private boolean expired;

        Waiter(int permits, long leaseMillis, boolean watchdog, long deadlineNanos, boolean waits) {
            this.permits = permits;
            this.leaseMillis = leaseMillis;
            this.watchdog = watchdog;
            this.deadlineNanos = deadlineNanos;
            this.waits = waits;
        }

        void cancelTimer() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    final LockEngine engine;
    final Key key;
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private boolean attempting;
    private long changes;
    private boolean dead;
    private final ChangeSubscription subscription = new ChangeSubscription();
    private ScheduledFuture<?> recheck;
    private int handOffs;
    /** The waiter the attempt in flight was made for, or {@code null}. */
    private Waiter attemptFor;
    /**
     * Completes once the attempt in flight has answered and what it took for a waiter that no longer needs it is
     * back ({@link #handOff} lets a release wait for it); {@code null} when none is in flight.
     */
    private CompletableFuture<Void> attemptSettled;

    /** What a {@link #handOff} left for the backend, and what the releasing call waits for before it returns. */
    record HandOff(int left, CompletableFuture<Void> settled) {
    }

    CountWaiters(LockEngine engine, Key key) {
        this.engine = engine;
        this.key = key;
    }

    /**
     * Queues {@code w} and starts an attempt if none is in flight; {@code false} if this instance went idle and was
     * dropped meanwhile (the caller takes a fresh one). A waiter that may not wait is refused at once when others
     * wait here already: the resource is busy for this client.
     */
    private boolean blockedWaiterLocked() {
        for (Waiter q : queue) {
            if (q.waits) {
                return true;
            }
        }
        return false;
    }

    boolean enqueue(Waiter w) {
        boolean start;
        boolean subscribe;
        CompletableFuture<RemoteCountOps.Subscription> placeholder = null;
        lock.lock();
        try {
            if (dead) {
                return false;
            }
            engine.checkOpen();
            if (!w.waits && blockedWaiterLocked()) {
                // a waiter of this client blocks for it already: not enough is free for a single look to win.
                // Other single looks ahead of it do not refuse it (two tryAcquire() of a semaphore with two free
                // permits both succeed, as with java.util.concurrent.Semaphore)
                w.result.complete(null); // nobody waits on it yet: completing here runs no caller code
                return true;
            }
            queue.addLast(w);
            start = !attempting;
            attempting = true;
            if (w.waits) {
                placeholder = subscription.beginLocked();
            }
            subscribe = placeholder != null;
        } finally {
            lock.unlock();
        }
        if (w.waits && w.deadlineNanos != io.latchkey.core.AcquireRequest.NO_DEADLINE) {
            w.timer = Waits.armDeadline(engine, w.deadlineNanos, () -> timedOut(w));
        }
        if (subscribe) {
            subscribe(placeholder);
        }
        if (start) {
            attempt();
        }
        return true;
    }

    /**
     * Queues {@code w} on {@code key}'s waiters and blocks until it completes: the attempt's result, or {@code null}
     * when its wait ran out. On interrupt the waiter leaves the queue; if it had been granted meanwhile, what it took
     * is given back before {@link InterruptedException} is thrown (the flag cleared, as {@code java.util.concurrent}
     * does), so an interrupted acquire takes nothing.
     */
    static Object await(LockEngine engine, Key key, Waiter w) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for '" + key.name() + "'");
        }
        CountWaiters waiters;
        do {
            waiters = engine.countWaiters.computeIfAbsent(key, k -> new CountWaiters(engine, k));
        } while (!waiters.enqueue(w));
        CountWaiters queued = waiters;
        return CallerWaits.await(engine, w.result, key.name(), true, () -> queued.abandon(w),
                late -> queued.undo(w, late));
    }

    /**
     * Queues {@code w} without blocking: the returned future completes with {@code map} applied to the attempt's
     * result ({@code null} when the wait ran out) on a Latchkey thread. Cancelling it withdraws the waiter; if a grant
     * raced the cancellation, what it took is given back (as after an interrupt).
     */
    static <T> CompletableFuture<T> submit(LockEngine engine, Key key, Waiter w, Function<Object, T> map) {
        CountWaiters waiters;
        do {
            waiters = engine.countWaiters.computeIfAbsent(key, k -> new CountWaiters(engine, k));
        } while (!waiters.enqueue(w));
        CountWaiters queued = waiters;
        // if it was no longer queued when cancelled, its result arrives later and is given back
        return CallerWaits.async(w.result, map, () -> queued.abandon(w), r -> queued.undo(w, r));
    }

    private void subscribe(CompletableFuture<RemoteCountOps.Subscription> placeholder) {
        subscription.subscribe(lock, () -> dead, placeholder, () -> key.ops().subscribe(key.name(), this::changed),
                this::changed, key.name());
    }

    /** A wake-up: the backend's push, the re-check timer, or the subscription taking effect. */
    void changed() {
        boolean start = false;
        lock.lock();
        try {
            changes++;
            if (!attempting && !queue.isEmpty()) {
                attempting = true;
                start = true;
            }
        } finally {
            lock.unlock();
        }
        if (start) {
            attempt();
        }
    }

    /** One remote attempt for the head of the queue; the caller set {@link #attempting}. */
    private void attempt() {
        Waiter head;
        long epoch;
        lock.lock();
        try {
            head = queue.peekFirst();
            if (head == null) {
                attempting = false;
                idleLocked();
            }
            attemptFor = head;
            attemptSettled = head == null ? null : new CompletableFuture<>();
            epoch = changes;
        } finally {
            lock.unlock();
        }
        if (head == null) {
            closeIfDead();
            return;
        }
        CompletableFuture<Object> f;
        try {
            f = CountKinds.attempt(engine, key, head);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        Waiter h = head;
        // an answer on this stack (a backend without I/O) continues here, but a run of grants that nests deeper
        // than the trampoline's bound continues on the callback executor
        f.whenComplete((r, e) -> Trampoline.run(engine.callbacks, () -> attempted(h, epoch, r, e)));
    }

    private void attempted(Waiter head, long epoch, Object result, Throwable error) {
        List<Waiter> done = new ArrayList<>();
        boolean again;
        boolean undo = false;
        CompletableFuture<Void> settled;
        CompletableFuture<RemoteCountOps.Subscription> resubscribe = null;
        // a waiter may give up (interrupt, close, a deadline after its first answer) while the attempt made for it
        // is out: what it took then goes back
        lock.lock();
        try {
            attemptFor = null;
            settled = attemptSettled;
            attemptSettled = null;
            if (error != null || result != null) {
                if (!CountKinds.servesAll(key.kind())) {
                    if (queue.remove(head)) {
                        done.add(head);
                    } else {
                        undo = result != null;
                    }
                } else {
                    done.addAll(queue);
                    queue.clear();
                }
                again = !queue.isEmpty();
            } else if ((!head.waits || head.expired) && queue.peekFirst() == head) {
                // a single attempt, or the first look of a waiter whose deadline passed meanwhile, found nothing: over
                queue.removeFirst();
                done.add(head);
                again = !queue.isEmpty();
            } else {
                again = changes != epoch && !queue.isEmpty();
            }
            if (!again) {
                attempting = false;
                if (queue.isEmpty()) {
                    idleLocked();
                } else {
                    armRecheckLocked();
                    // the last subscribe failed (or only single attempts came before): try again now
                    resubscribe = subscription.beginLocked();
                }
            }
        } finally {
            lock.unlock();
        }
        if (resubscribe != null) {
            subscribe(resubscribe);
        }
        if (undo) {
            undo(head, result).whenComplete((r, e) -> settled.complete(null));
        } else {
            settled.complete(null); // outside the lock: a releasing call may continue on it
        }
        for (Waiter w : done) {
            w.cancelTimer();
            boolean delivered = error != null ? w.result.completeExceptionally(error) : w.result.complete(result);
            if (!delivered && result != null && error == null) {
                undo(w, result);
            }
        }
        closeIfDead();
        if (again) {
            attempt();
        }
    }

    private void armRecheckLocked() {
        if (recheck == null || recheck.isDone()) {
            long delay = TimeUnit.MILLISECONDS.toNanos(Math.max(1, key.ops().recheckMillis()));
            recheck = engine.watchdog.schedule(this::recheckDue, delay);
        }
    }

    /**
     * The re-check timer fired. It forgets itself before it looks: the attempt it starts may finish on another
     * thread before this task returns, and that attempt must be able to arm the next re-check (a timer still
     * running counts as not done, and a waiter on a backend without pushes was left without any re-check).
     */
    private void recheckDue() {
        lock.lock();
        try {
            recheck = null;
        } finally {
            lock.unlock();
        }
        changed();
    }

    private void timedOut(Waiter w) {
        boolean removed;
        lock.lock();
        try {
            if (attempting && attemptFor == w) {
                // a look made for it is still out (a cold connection, a slow network, a wake-up just before the
                // deadline): that look's answer decides, as Semaphore.tryAcquire(timeout) takes a free permit whatever
                // the timeout, and what it takes is never missing after a false; bounded by the operation timeout
                w.expired = true;
                return;
            }
            removed = queue.remove(w);
            if (removed && queue.isEmpty() && !attempting) {
                idleLocked();
            }
        } finally {
            lock.unlock();
        }
        if (removed) {
            w.result.complete(null);
            closeIfDead();
        }
    }

    /**
     * Takes {@code w} out of the queue (interrupt, cancellation); returns whether it was still waiting. If it was
     * not, its result is complete or, when an attempt made for it is out, completes with that attempt's answer: the
     * caller gives back what it holds.
     */
    boolean abandon(Waiter w) {
        boolean removed;
        lock.lock();
        try {
            if (attempting && attemptFor == w) {
                w.expired = true; // the answer decides; it is given back by the caller
                return false;
            }
            removed = queue.remove(w);
            if (removed && queue.isEmpty() && !attempting) {
                idleLocked();
            }
        } finally {
            lock.unlock();
        }
        if (removed) {
            w.cancelTimer();
            w.result.complete(null);
            closeIfDead();
        }
        return removed;
    }

    /**
     * A semaphore's local hand-off: the {@code permits} this client releases go straight to its own waiters at the
     * head of the queue that fit (in queue order, stopping at the first that does not), without a round trip and
     * without the backend ever seeing them free; returns what is left for the backend. After
     * {@link LockEngine#MAX_LOCAL_HAND_OFFS} hand-offs in a row one release goes to the backend whole, so that other
     * clients' waiters get their turn (the lock engine's rule). A waiter served here whose remote attempt is still
     * out gives back what that attempt takes ({@link #attempted}); the result's {@code settled} completes once that
     * attempt has answered and its give-back landed, and the releasing call waits for it, so that no permit is
     * missing once every holder's release has returned. A waiter served here that is abandoned in the race gives
     * back what it was handed (the caller's {@link #undo}).
     */
    HandOff handOff(int permits) {
        List<Waiter> served = new ArrayList<>();
        int left = permits;
        CompletableFuture<Void> settled = null;
        lock.lock();
        try {
            if (key.kind() != CountKind.SEMAPHORE || dead) {
                return new HandOff(permits, null);
            }
            if (handOffs >= LockEngine.MAX_LOCAL_HAND_OFFS) {
                handOffs = 0;
                return new HandOff(permits, null);
            }
            while (!queue.isEmpty() && queue.peekFirst().permits <= left) {
                Waiter w = queue.removeFirst();
                left -= w.permits;
                served.add(w);
                if (w == attemptFor) {
                    settled = attemptSettled;
                }
            }
            handOffs = served.isEmpty() ? 0 : handOffs + 1;
            if (!served.isEmpty() && queue.isEmpty() && !attempting) {
                idleLocked();
            }
        } finally {
            lock.unlock();
        }
        for (Waiter w : served) {
            w.cancelTimer();
            w.result.complete(Boolean.TRUE);
        }
        if (!served.isEmpty()) {
            closeIfDead();
        }
        return new HandOff(left, settled);
    }

    /** Fails every waiter (client close). */
    void failAll(RuntimeException failure) {
        List<Waiter> failed;
        lock.lock();
        try {
            failed = new ArrayList<>(queue);
            queue.clear();
            if (!attempting) {
                idleLocked();
            }
        } finally {
            lock.unlock();
        }
        for (Waiter w : failed) {
            w.cancelTimer();
            w.result.completeExceptionally(failure);
        }
        closeIfDead();
    }

    /** Gives back what an attempt took for a waiter that had left (see {@link CountKinds#giveBack}). */
    CompletableFuture<?> undo(Waiter w, Object result) {
        return CountKinds.giveBack(key, w, result);
    }

    private void idleLocked() {
        dead = true;
        engine.countWaiters.remove(key, this);
    }

    /** Closes the subscription and the re-check of an instance that went idle; outside the lock. */
    private void closeIfDead() {
        CompletableFuture<RemoteCountOps.Subscription> s;
        ScheduledFuture<?> r;
        lock.lock();
        try {
            if (!dead) {
                return;
            }
            s = subscription.takeLocked();
            r = recheck;
            recheck = null;
        } finally {
            lock.unlock();
        }
        if (r != null) {
            r.cancel(false);
        }
        ChangeSubscription.close(s);
    }
}
