package io.latchkey.core.internal;

import io.latchkey.core.RemoteLockOps;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The engine's policy for when a waiter whose attempt found the lock busy looks again without a push: a decision from
 * the backend's answer and the waiter's time waited, with no state of its own. A backend names the latest useful
 * re-check ({@link RemoteLockOps.Attempt#recheckNanos()}, such as the holder's remaining lease) and, where nothing may
 * push the change it waits for (a dead holder in another process, a database without notifications), the first wait
 * of a back-off ({@link RemoteLockOps.Attempt#withBackoff}). The back-off waits about as long as the waiter has waited
 * so far, which doubles the waits without counting them: d = min(bound, max(first wait, time waited)), drawn from
 * [d/2, d] so that waiters of several clients spread out. Every re-check is at most {@link #RECHECK_FALLBACK_NANOS}
 * (the fallback for a lost push) and is cut short by a push, the waiter's deadline or its cancellation.
 */
final class Backoff {

    /** At most this long between looks without a push (the engine's bound on a backend's hint). */
    static final long RECHECK_FALLBACK_NANOS = TimeUnit.SECONDS.toNanos(5);

    private Backoff() {
    }

    /**
     * {@return when a waiter that has waited {@code waitedNanos} looks again after the busy or queued answer
     * {@code a}, in nanoseconds}
     */
    static long recheckNanos(RemoteLockOps.Attempt a, long waitedNanos) {
        long bound = a.recheckNanos() <= 0 ? RECHECK_FALLBACK_NANOS
                : Math.min(a.recheckNanos(), RECHECK_FALLBACK_NANOS);
        if (a.backoffNanos() <= 0) {
            return bound;
        }
        long d = Math.min(bound, Math.max(a.backoffNanos(), waitedNanos));
        return d / 2 + ThreadLocalRandom.current().nextLong(d / 2 + 1);
    }
}
