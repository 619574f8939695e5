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
        List<Waiter<?>> served = new ArrayList<>(2);
        int left;
        Waiter<?> next;
        s.lock();
        try {
            left = s.handPermitsLocked(permits, served);
            next = s.pumpLocked();
            s.idleCheckLocked();
        } finally {
            s.unlock();
        }
        CompletableFuture<Void> settled = null;
        for (Waiter<?> w : served) {
            w.cancelTimer();
            w.serve(WaitKind.TOOK);
            if (w.settled() != null) {
                settled = w.settled(); // the head, HANDED: its attempt's answer and give-back are still to come
            }
        }
        if (!served.isEmpty()) {
            WaitAttempts.closeUnusedSubscription(s);
        }
        s.send(next);
        return new HandOff(left, settled);
    }
}
