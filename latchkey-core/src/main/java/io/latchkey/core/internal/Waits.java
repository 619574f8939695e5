package io.latchkey.core.internal;

import io.latchkey.core.AcquireRequest;
import java.util.concurrent.ScheduledFuture;

/** Deadline arithmetic and the one deadline timer of a waiter, shared by locks and counted resources. */
final class Waits {

    private Waits() {
    }

    /**
     * The {@link LockEngine#time} deadline of a wait of {@code waitNanos} from now: {@link AcquireRequest#NO_DEADLINE}
     * for a negative wait (as long as needed) or one too long to represent (beyond about 73 years).
     */
    static long deadline(LockEngine engine, long waitNanos) {
        return deadline(engine.time.nanoTime(), waitNanos);
    }

    /** The deadline of a wait of {@code waitNanos} that started at {@code startNanos}; see above. */
    static long deadline(long startNanos, long waitNanos) {
        if (waitNanos < 0 || waitNanos >= Long.MAX_VALUE / 4) {
            // beyond ~73 years a wait is a wait forever; this also keeps deadline arithmetic from overflowing
            return AcquireRequest.NO_DEADLINE;
        }
        long d = startNanos + waitNanos;
        return d == AcquireRequest.NO_DEADLINE ? d - 1 : d;
    }

    /**
     * Arms a waiter's one deadline timer: {@code onDeadline} runs on the watchdog thread once {@code deadlineNanos}
     * (of {@link LockEngine#time}) has passed, at once if it has. {@code null} if the engine is closing.
     */
    static ScheduledFuture<?> armDeadline(LockEngine engine, long deadlineNanos, Runnable onDeadline) {
        return engine.watchdog.schedule(onDeadline, Math.max(0, deadlineNanos - engine.time.nanoTime()));
    }
}
