package io.latchkey.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore's local hand-off in its {@link NameState}: the permits this client releases go straight to its own
 * waiters that fit (the one at the backend first, then the queue, in order, stopping at the first that does not fit),
 * without a round trip and without the backend ever seeing them free. After {@link LockEngine#MAX_LOCAL_HAND_OFFS}
 * hand-offs in a row one release goes to the backend whole, so that other clients' waiters get their turn (the
 * lock's rule). A waiter served here whose attempt is out is {@link Waiter.State#HANDED}: what that attempt takes is
 * given back, and the releasing call waits for {@link HandOff#settled} (that answer and its give-back), so that no
 * permit is missing once every holder's release has returned. A waiter served here that is abandoned in the race
 * gives back what it was handed (its caller's give-back, {@link CallerWaits}).
 */
final class CountHandOff {

    private CountHandOff() {
    }

    /**
     * What a hand-off left for the backend, and what the releasing call waits for before it returns ({@code null}:
     * nothing).
     */
    record HandOff(int left, CompletableFuture<Void> settled) {
    }

    /** Hands {@code permits} released by this client to its waiters of {@code s} that fit; returns what is left. */
    static HandOff handOff(NameState s, int permits) {
        if (s == null) {
            return new HandOff(permits, null);
        }
        List<Waiter> served = new ArrayList<>(2);
        int left = permits;
        CompletableFuture<Void> settled = null;
        Waiter next;
        s.lock.lock();
        try {
            if (s.dead) {
                return new HandOff(permits, null);
            }
            if (s.handOffStreak >= LockEngine.MAX_LOCAL_HAND_OFFS) {
                s.handOffStreak = 0;
                return new HandOff(permits, null);
            }
            Waiter head = s.inflight;
            boolean fits = true;
            if (head != null && head.state == Waiter.State.INFLIGHT) {
                fits = head.permits <= left;
                if (fits) {
                    left -= head.permits;
                    served.add(head);
                    if (head.attempting) {
                        // its attempt stays the one in flight until it answers; what it takes goes back
                        head.state = Waiter.State.HANDED;
                        head.settled = new CompletableFuture<>();
                        settled = head.settled;
                    } else {
                        head.state = Waiter.State.GRANTED;
                        s.inflight = null;
                    }
                }
            }
            while (fits && !s.queueEmptyLocked() && s.queue.peekFirst().permits <= left) {
                Waiter w = s.queue.poll();
                left -= w.permits;
                w.state = Waiter.State.GRANTED;
                served.add(w);
            }
            s.handOffStreak = served.isEmpty() ? 0 : s.handOffStreak + 1;
            next = s.pumpLocked();
            s.idleCheckLocked();
        } finally {
            s.lock.unlock();
        }
        for (Waiter w : served) {
            w.cancelTimer();
            w.future.complete(Boolean.TRUE);
        }
        if (!served.isEmpty()) {
            WaitAttempts.closeUnusedSubscription(s);
        }
        s.send(next);
        return new HandOff(left, settled);
    }
}
