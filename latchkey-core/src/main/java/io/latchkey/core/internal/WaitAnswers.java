package io.latchkey.core.internal;

import io.latchkey.core.Grant;
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
     * nothing), {@code e} its failure; {@code handOff}: the answer of a local hand-off (which continues the streak).
     */
    static <R> void settle(NameState s, Waiter<R> w, Grant taken, Throwable e, boolean handOff) {
        Runnable done;
        Waiter<?> next;
        Grant late = null;
        R granted = null;
        boolean settle = false;
        List<Waiter<?>> alsoServed = null;
        s.lock();
        try {
            s.leaveBackendLocked(w);
            switch (w.state()) {
                case INFLIGHT:
                    if (e != null) {
                        w.moveTo(Waiter.State.FAILED);
                        Throwable cause = LockEngine.unwrap(e);
                        done = () -> w.future.completeExceptionally(cause);
                    } else if (taken == null) {
                        w.moveTo(Waiter.State.TIMED_OUT);
                        done = () -> {
                            w.kind.timedOut(s, w);
                            w.future.complete(null);
                        };
                    } else {
                        w.moveTo(Waiter.State.GRANTED);
                        s.grantedLocked(handOff);
                        R r = w.kind.grantedLocked(s, w, taken);
                        granted = r;
                        done = () -> w.future.complete(r);
                    }
                    if (w.kind.servesAll() && (e != null || taken != null)) {
                        // a latch's one look answers for every waiter of the name
                        alsoServed = s.drainQueueLocked(e != null ? Waiter.State.FAILED : Waiter.State.GRANTED);
                    }
                    break;
                case CANCELLED:
                    if (taken != null) {
                        late = taken;
                        s.givingBackLocked();
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
            s.unlock();
        }
        w.cancelTimer();
        if (granted != null) {
            w.kind.granted(s, w, granted);
        }
        if (late != null) {
            WaitEnds.releaseLateGrant(s, w, late);
        }
        if (settle) {
            w.settled().complete(null);
        }
        if (done != null) {
            Trampoline.run(s.engine.callbacks, done);
        }
        if (alsoServed != null) {
            Throwable cause = e == null ? null : LockEngine.unwrap(e);
            for (Waiter<?> q : alsoServed) {
                q.cancelTimer();
                Trampoline.run(s.engine.callbacks, () -> {
                    if (cause != null) {
                        q.future.completeExceptionally(cause);
                    } else {
                        q.serve(taken);
                    }
                });
            }
        }
        s.send(next);
    }
}
