package io.latchkey.core.internal;

import io.latchkey.core.internal.Waiter.State;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The waiters part of a {@link NameState} (its base class, so that a name costs one object): the local FIFO
 * ({@link #queue}), the head at the backend ({@link #inflight}) and the waiters at the backend beside the queue
 * ({@link #bypassing}: a fair lock's, a downgrade), and the transitions that move waiters between them. Whether the
 * head may go now is the machine's to say ({@link #headMayGoLocked}). Invariants 1 to 3 of {@link NameState} are
 * this part's ({@link #checkWaitersLocked}). Guarded by this lock; every field is written only here.
 */
@SuppressWarnings("serial") // never serialized: package-private, engine-internal
abstract class NameWaiters extends NameHolds {

    // queue and bypassing are made on first use: most nameStates live for one uncontended cycle and never need them
    private ArrayDeque<Waiter<?>> queue;
    private Waiter<?> inflight;
    private Set<Waiter<?>> bypassing;
    /** Withdrawals of waiters' places in the server's queue on their way ({@link NameState#withdrawingLocked}). */
    private int withdrawing;
    /** Attempts held back until {@code withdrawing} is 0 again, in the order they came; {@code null} if none. */
    private List<Runnable> heldBack;

    /** Under the lock: the queue's head may go to the backend now, nothing being in flight (exclusive: nothing held). */
    abstract boolean headMayGoLocked();

    /** Whether {@code w} goes to the backend at once, beside the queue (a fair lock's waiter, a downgrade). */
    abstract boolean besideQueue(Waiter<?> w);

    /** Under the lock: queues {@code w}; returns the waiter to send now, if any. */
    Waiter<?> enqueueLocked(Waiter<?> w) {
        if (besideQueue(w)) {
            w.moveTo(State.INFLIGHT);
            if (bypassing == null) {
                bypassing = new LinkedHashSet<>(4); // in arrival order: a push wakes fair waiters in calling order
            }
            bypassing.add(w);
            return w;
        }
        if (inflight == null && queueEmptyLocked() && headMayGoLocked()) {
            w.moveTo(State.INFLIGHT); // as pumpLocked would, without making a queue (64 bytes kept per held lock)
            inflight = w;
            return w;
        }
        if (queue == null) {
            queue = new ArrayDeque<>(4);
        }
        queue.add(w);
        return pumpLocked();
    }

    /** Under the lock: the head goes to the backend if it may now (see the invariants); returns it to send. */
    Waiter<?> pumpLocked() {
        if (inflight != null || queueEmptyLocked() || !headMayGoLocked()) {
            return null;
        }
        Waiter<?> w = queue.poll();
        w.moveTo(State.INFLIGHT);
        inflight = w;
        return w;
    }

    /** Under the lock: a new waiter would be sent now. */
    boolean sendableNowLocked() {
        return inflight == null && queueEmptyLocked() && headMayGoLocked();
    }

    /** Under the lock: a waiter of this client that blocks (not a single look) waits for the name. */
    boolean blockedWaiterLocked() {
        if (inflight != null && inflight.waits && inflight.state() == State.INFLIGHT) {
            return true;
        }
        if (queue != null) {
            for (Waiter<?> q : queue) {
                if (q.waits) {
                    return true;
                }
            }
        }
        return false;
    }

    boolean queueEmptyLocked() {
        return queue == null || queue.isEmpty();
    }

    boolean inflightLocked() {
        return inflight != null;
    }

    /** Under the lock: some waiter is at the backend (in flight, or beside the queue). */
    boolean atBackendLocked() {
        return inflight != null || bypassing != null && !bypassing.isEmpty();
    }

    /** {@code w}, queued, leaves the queue. */
    void leaveQueueLocked(Waiter<?> w) {
        queue.remove(w);
    }

    /** {@code w} is no longer at the backend (between attempts, answered, or abandoned). */
    void leaveBackendLocked(Waiter<?> w) {
        if (inflight == w) {
            inflight = null;
        }
        if (bypassing != null) {
            bypassing.remove(w);
        }
    }

    /** Every queued waiter, moved to {@code to} (a latch's one look serves them all; close fails them). */
    List<Waiter<?>> drainQueueLocked(State to) {
        List<Waiter<?>> all = new ArrayList<>(queue == null ? 1 : queue.size() + 1);
        for (Waiter<?> q; queue != null && (q = queue.poll()) != null; ) {
            q.moveTo(to);
            all.add(q);
        }
        return all;
    }

    /** A push: adds to {@code wake} every waiter at the backend that is not looking now. */
    void notLookingLocked(List<Waiter<?>> wake) {
        if (inflight != null && inflight.state() == State.INFLIGHT && !inflight.attempting()) {
            wake.add(inflight);
        }
        if (bypassing != null) {
            for (Waiter<?> w : bypassing) {
                if (w.state() == State.INFLIGHT && !w.attempting()) {
                    wake.add(w);
                }
            }
        }
    }

    /** Close: every waiter that still waits, failed (queued) or abandoned (at the backend). */
    List<Waiter<?>> failAllLocked() {
        List<Waiter<?>> failed = drainQueueLocked(State.FAILED);
        if (inflight != null && inflight.state() == State.INFLIGHT) {
            inflight.moveTo(State.ABANDONED);
            failed.add(inflight);
        }
        inflight = null;
        if (bypassing != null) {
            for (Waiter<?> w : bypassing) {
                if (w.state() == State.INFLIGHT) {
                    w.moveTo(State.ABANDONED);
                    failed.add(w);
                }
            }
            bypassing.clear();
        }
        return failed;
    }

    /** The queue's head, now in flight with a hand-off as its attempt; {@code null} if nothing can be handed off. */
    Waiter<?> handOffHeadLocked() {
        if (inflight != null || queueEmptyLocked()) {
            return null;
        }
        Waiter<?> next = queue.poll();
        next.beginHandOff();
        inflight = next;
        return next;
    }

    /** A hand-off to {@code next} did not take ({@code e}: no answer); returns whether it queued again at the head. */
    boolean requeueLocked(Waiter<?> next, Throwable e) {
        leaveBackendLocked(next);
        if (next.state() != State.INFLIGHT) {
            return false;
        }
        next.requeue(e);
        queue.addFirst(next);
        return true;
    }

    /**
     * {@code permits} released by this client go to its waiters that fit (the one at the backend first, then the queue
     * in order, up to the first that does not fit), added to {@code served}; returns what is left for the backend.
     */
    int servePermitsLocked(int permits, List<Waiter<?>> served) {
        int left = permits;
        if (inflight != null && inflight.state() == State.INFLIGHT) {
            if (inflight.permits > left) {
                return left;
            }
            left -= inflight.permits;
            served.add(inflight);
            if (inflight.attempting()) {
                inflight.hand(); // its attempt stays the one in flight until it answers; what it takes goes back
            } else {
                inflight.moveTo(State.GRANTED);
                inflight = null;
            }
        }
        while (!queueEmptyLocked() && queue.peekFirst().permits <= left) {
            Waiter<?> w = queue.poll();
            left -= w.permits;
            w.moveTo(State.GRANTED);
            served.add(w);
        }
        return left;
    }

    /** Under the lock: the first broken invariant of the waiters (1 to 3 of {@link NameState}), or {@code null}. */
    String checkWaitersLocked(boolean single) {
        if (withdrawing < 0 || withdrawing == 0 && heldBack != null) {
            return "attempts held back with no withdrawal on its way, or a negative count";
        }
        if (inflight != null) {
            String broken = checkAtBackend(inflight, single);
            if (broken != null || bypassing != null && bypassing.contains(inflight)) {
                return broken != null ? broken : inflight + " is both in flight and beside the queue";
            }
        }
        if (bypassing != null) {
            for (Waiter<?> w : bypassing) {
                String broken = checkAtBackend(w, single);
                if (broken != null || !besideQueue(w)) {
                    return broken != null ? broken : w + " is beside the queue but may not be";
                }
            }
        }
        if (queue != null) {
            for (Waiter<?> w : queue) {
                if (w.nameState != this || w.state() != State.QUEUED || besideQueue(w) || w.checkFlags(single) != null) {
                    return w + " is queued in a state or place it may not be";
                }
            }
            if (queue.size() > 1 && queue.stream().distinct().count() != queue.size()) {
                return "a waiter is queued twice: " + queue; // Waiter keeps Object's identity equals
            }
        }
        return null;
    }

    private String checkAtBackend(Waiter<?> w, boolean single) {
        State st = w.state();
        if (w.nameState != this || st != State.INFLIGHT && st != State.CANCELLED && st != State.HANDED
                || queue != null && queue.contains(w)) {
            return w + " is at the backend in a state or place it may not be";
        }
        return w.checkFlags(single);
    }

    /** Under the lock: the waiters, for test failures. */
    String describeWaitersLocked() {
        return "queue=" + queue + " inflight=" + inflight + " bypassing=" + bypassing + " withdrawing=" + withdrawing;
    }

    // ---------------------------------------------------------------- withdrawals on their way, attempts held back

    void withdrawalSentLocked() {
        withdrawing++;
    }

    /** {@return the attempts held back, if this was the last withdrawal on its way, else {@code null}} */
    List<Runnable> withdrawalAnsweredLocked() {
        return --withdrawing > 0 ? null : takeHeldBackLocked();
    }

    /** Under the lock: whether a withdrawal is on its way (the name's next attempt is then held back). */
    boolean withdrawingNowLocked() {
        return withdrawing > 0;
    }

    /**
     * Under the lock, while {@link #withdrawingNowLocked}: holds {@code attempt} back behind those held back before it
     * (a fair lock's waiters take their places in the server's queue in the order they came); {@code true} if it is
     * the first one (the caller then sends them after the operation timeout at the latest).
     */
    boolean holdBackLocked(Runnable attempt) {
        boolean first = heldBack == null;
        if (first) {
            heldBack = new ArrayList<>(2);
        }
        heldBack.add(attempt);
        return first;
    }

    /** Under the lock: the attempts held back, in order, to send outside the lock; {@code null} if none. */
    List<Runnable> takeHeldBackLocked() {
        List<Runnable> held = heldBack;
        heldBack = null;
        return held;
    }
}
