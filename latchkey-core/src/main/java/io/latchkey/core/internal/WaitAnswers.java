package io.latchkey.core.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * How an answer settles a waiter of a {@link NameState}, for every kind: the backend answered its attempt (or a lock's
 * blocking acquire, or a hand-off). A waiter still waiting gets what its {@link WaitKind} makes of a success (a latch's
 * success also serves every queued waiter), {@code null} for nothing, or the failure; for a waiter that left meanwhile
 * (cancelled, abandoned by the backstop or the client's close, timed out, or served locally by a semaphore's
 * hand-off) what the answer took is given back ({@link WaitEnds#releaseLateGrant}). Then the next head is sent.
 * Runs without the name state's lock held and takes it itself; completes futures outside it.
 */
final class WaitAnswers {

    private WaitAnswers() {
    }

    /**
     * The backend answered {@code w}'s attempt, acquire or hand-off: {@code taken} is what it took ({@code null}:
     * nothing), {@code e} its failure.
     */
    static void settle(NameState s, Waiter w, Object taken, Throwable e, boolean handOff) {
        Runnable done;
        Waiter next;
        Object late = null;
        Object granted = null;
        boolean settle = false;
        List<Waiter> alsoServed = null;
        s.lock.lock();
        try {
            if (s.inflight == w) {
                s.inflight = null;
            }
            if ((w.bypass || s.fair) && w.state != Waiter.State.ABANDONED) {
                s.removeBypassingLocked(w);
            }
            switch (w.state) {
                case INFLIGHT:
                    if (e != null) {
                        w.state = Waiter.State.FAILED;
                        Throwable cause = LockEngine.unwrap(e);
                        done = () -> w.future.completeExceptionally(cause);
                    } else if (taken == null) {
                        w.state = Waiter.State.TIMED_OUT;
                        done = () -> {
                            s.kind.timedOut(s, w);
                            w.future.complete(null);
                        };
                    } else {
                        w.state = Waiter.State.GRANTED;
                        if (!handOff) {
                            s.handOffStreak = 0;
                        }
                        Object r = s.kind.grantedLocked(s, w, taken);
                        granted = r;
                        done = () -> w.future.complete(r);
                    }
                    if (s.kind.servesAll() && (e != null || taken != null) && !s.queueEmptyLocked()) {
                        // a latch's one look answers for every waiter of the name
                        alsoServed = new ArrayList<>(s.queue);
                        s.queue.clear();
                        for (Waiter q : alsoServed) {
                            q.state = e != null ? Waiter.State.FAILED : Waiter.State.GRANTED;
                        }
                    }
                    break;
                case CANCELLED:
                    if (taken != null) {
                        late = taken;
                        if (!s.shared) {
                            s.releasing++;
                        }
                        done = null;
                    } else {
                        done = () -> w.future.complete(null);
                    }
                    break;
                case HANDED:
                    // served locally while this attempt was out: what it took goes back, then the release returns
                    late = taken;
                    settle = taken == null;
                    done = null;
                    break;
                default:
                    // abandoned, or already ended (timed out): what nobody will own goes back
                    late = taken;
                    done = null;
            }
            next = s.pumpLocked();
            s.idleCheckLocked();
        } finally {
            s.lock.unlock();
        }
        w.cancelTimer();
        if (granted != null) {
            s.kind.granted(s, w, granted);
        }
        if (late != null) {
            WaitEnds.releaseLateGrant(s, w, late);
        }
        if (settle) {
            w.settled.complete(null);
        }
        if (done != null) {
            Trampoline.run(s.engine.callbacks, done);
        }
        if (alsoServed != null) {
            Object r = granted;
            Throwable cause = e == null ? null : LockEngine.unwrap(e);
            for (Waiter q : alsoServed) {
                q.cancelTimer();
                Trampoline.run(s.engine.callbacks, () -> {
                    if (cause != null) {
                        q.future.completeExceptionally(cause);
                    } else {
                        q.future.complete(r);
                    }
                });
            }
        }
        s.send(next);
    }
}
