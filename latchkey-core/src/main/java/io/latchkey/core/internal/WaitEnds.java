package io.latchkey.core.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a waiter of a {@link NameState} (of any kind) stops waiting without a grant: its deadline ({@link #onDeadline}),
 * no answer within the operation timeout after it ({@link #onNoAnswer}), a cancel or an interrupt ({@link #cancel}),
 * the client's close ({@link #failAll}), and the give-back of a grant that answers a waiter nobody waits for any more
 * ({@link #releaseLateGrant}). A waiter between attempts ends at once; one whose attempt is out (or whose first attempt
 * has not answered yet) ends with that attempt's answer, bounded by the operation timeout; so does a queued single look
 * of a counted resource, which keeps its one look. Every method runs without the name state's lock held and takes it
 * itself.
 */
final class WaitEnds {
    private static final Logger log = LoggerFactory.getLogger(WaitEnds.class);

    private WaitEnds() {
    }

    /**
     * What a success took for a waiter nobody waits for any more (or one already served locally): give it back so
     * that nothing is left behind; then the waiter's future completes with {@code null} (and a served waiter's
     * {@link Waiter#settled}).
     */
    static void releaseLateGrant(NameState s, Waiter<?> w, Grant taken) {
        boolean counted = w.state() == Waiter.State.CANCELLED && !s.shared;
        log.debug("giving back {} taken for an abandoned acquire of '{}'", taken, s.name);
        w.kind.giveBack(s, w, taken).whenComplete((ok, e) -> {
            Waiter<?> next;
            s.lock();
            try {
                if (counted) {
                    s.releasedLocked();
                }
                next = s.pumpLocked();
                s.idleCheckLocked();
            } finally {
                s.unlock();
            }
            Trampoline.run(s.engine.callbacks, () -> w.future.complete(null));
            if (w.settled() != null) {
                w.settled().complete(null);
            }
            s.send(next);
        });
    }

    /** The deadline event: a queued waiter gives up; an in-flight one gets a grace period. */
    static void onDeadline(NameState s, Waiter<?> w) {
        boolean timedOut = false;
        boolean backstop = false;
        Waiter<?> next = null;
        s.lock();
        try {
            Waiter.State st = w.state();
            if (st == Waiter.State.QUEUED && !w.waits) {
                // a single look queued behind another single look: it keeps its look, bounded as an attempt is
                backstop = true;
            } else if (st == Waiter.State.QUEUED
                    || st == Waiter.State.INFLIGHT && s.single && !w.attempting() && w.looked()) {
                // queued, or waiting between attempts: over now (an attempt that is out decides instead, bounded
                // below; so does the first one, about to be sent: a wait never ends without one look)
                next = leaveLocked(s, w, Waiter.State.TIMED_OUT);
                timedOut = true;
            } else if (st == Waiter.State.INFLIGHT) {
                backstop = true;
                w.deadlinePassed(s.changesLocked());
            }
        } finally {
            s.unlock();
        }
        if (timedOut) {
            left(s, w);
            w.kind.timedOut(s, w);
            w.future.complete(null);
            s.send(next);
        } else if (backstop) {
            w.armTimer(s.engine.watchdog.schedule(() -> onNoAnswer(s, w), s.engine.remoteTimeoutNanos()));
        }
    }

    /** The backend did not answer an acquire within the operation timeout after its deadline. */
    private static void onNoAnswer(NameState s, Waiter<?> w) {
        Waiter<?> next;
        boolean betweenLooks = false;
        s.lock();
        try {
            if (w.state() == Waiter.State.QUEUED) {
                s.leaveQueueLocked(w); // a single look whose turn never came
            } else if (w.state() != Waiter.State.INFLIGHT) {
                return;
            }
            betweenLooks = !w.attempting(); // no answer will come to withdraw its place in the server's queue
            w.moveTo(Waiter.State.ABANDONED);
            s.leaveBackendLocked(w);
            next = s.pumpLocked();
            s.idleCheckLocked(); // an answer that still comes is given back all the same
        } finally {
            s.unlock();
        }
        w.request.cancel();
        long waited = s.engine.time.nanoTime() - w.startNanos;
        w.future.completeExceptionally(new LockUnavailableException(String.format(
                "%s '%s' got no answer from the %s backend within %d ms after its wait time (waited %d ms in all)",
                s.ops != null ? "acquire of lock" : "wait for", s.name, s.engine.backendName,
                TimeUnit.NANOSECONDS.toMillis(s.engine.remoteTimeoutNanos()), TimeUnit.NANOSECONDS.toMillis(waited))));
        if (s.single) {
            if (betweenLooks) {
                WaitAttempts.withdraw(s, w, false); // one whose attempt is out withdraws when it answers
            }
            WaitAttempts.closeUnusedSubscription(s);
        }
        s.send(next);
    }

    /**
     * The cancel event: the caller gave up on {@code w} (interrupt, cancelled future). A queued waiter leaves at once;
     * an in-flight one is cancelled at the backend and its future completes with {@code null} once the backend has
     * answered (and any grant it still made was released). A waiter already granted is left alone: the caller then
     * owns the hold in its future and must release it.
     */
    static void cancel(NameState s, Waiter<?> w) {
        boolean removed = false;
        boolean remote = false;
        Waiter<?> next = null;
        s.lock();
        try {
            if (w.state() == Waiter.State.QUEUED
                    || w.state() == Waiter.State.INFLIGHT && s.single && !w.attempting()) {
                // queued, or waiting between attempts: leaves now (an attempt that is out decides instead: a grant
                // goes back)
                next = leaveLocked(s, w, Waiter.State.CANCELLED);
                removed = true;
            } else if (w.state() == Waiter.State.INFLIGHT) {
                w.moveTo(Waiter.State.CANCELLED);
                remote = true;
            }
        } finally {
            s.unlock();
        }
        if (removed) {
            w.cancelTimer();
            left(s, w);
            w.future.complete(null);
            s.send(next);
        } else if (remote) {
            w.request.cancel();
        }
    }

    /**
     * Under the lock: ends {@code w}, queued or between attempts, in {@code end}; returns the next waiter to send (one
     * that left the backend makes room there, one that left the queue does not).
     */
    private static Waiter<?> leaveLocked(NameState s, Waiter<?> w, Waiter.State end) {
        boolean queued = w.state() == Waiter.State.QUEUED;
        if (queued) {
            s.leaveQueueLocked(w);
        } else {
            s.leaveBackendLocked(w);
        }
        w.moveTo(end);
        Waiter<?> next = queued ? null : s.pumpLocked();
        s.idleCheckLocked();
        return next;
    }

    /**
     * Outside the lock, after {@link #leaveLocked}: its place in the server's queue, an unused subscription and what an
     * unanswered hand-off to it may have made go.
     */
    private static void left(NameState s, Waiter<?> w) {
        boolean cleanUp;
        s.lock();
        try {
            cleanUp = w.takeHandOffUnanswered();
        } finally {
            s.unlock();
        }
        if (cleanUp) {
            s.kind.cleanUp(s, w); // a hand-off to it got no answer, and no attempt of its own answered since
        }
        if (s.single) {
            WaitAttempts.withdraw(s, w, false);
            WaitAttempts.closeUnusedSubscription(s);
        }
    }

    /** The close event: every waiter fails with {@code failure}; requests at the backend are cancelled. */
    static void failAll(NameState s, RuntimeException failure) {
        List<Waiter<?>> failed;
        List<Waiter<?>> looking = new ArrayList<>(1);
        s.lock();
        try {
            failed = s.failAllLocked();
            for (Waiter<?> w : failed) {
                if (w.attempting()) {
                    looking.add(w);
                }
            }
            s.idleCheckLocked();
        } finally {
            s.unlock();
        }
        for (Waiter<?> w : failed) {
            w.cancelTimer();
            w.request.cancel();
            if (s.single && !looking.contains(w)) {
                WaitAttempts.withdraw(s, w, false); // one that is looking now withdraws when its answer comes
            }
            w.future.completeExceptionally(failure);
        }
        if (s.single) {
            WaitAttempts.closeUnusedSubscription(s);
        }
    }
}
