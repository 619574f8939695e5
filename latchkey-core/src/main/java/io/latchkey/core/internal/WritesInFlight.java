package io.latchkey.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's calls that change the server's state (attempts, releases, hand-offs, withdrawals, give-backs of late
 * grants, attempt clean-ups), counted while they are in flight, so that a close lets them finish before the
 * backend's connection closes ({@link #settle}). An unlock that a user thread sent just before the close, or an
 * attempt whose grant comes after it and goes back, must reach the server first, or its lock would stay held until
 * the lease ends.
 */
final class WritesInFlight {
    private static final Logger log = LoggerFactory.getLogger(WritesInFlight.class);

    /** How long no call may be in flight before a close counts them as settled. */
    static final long SETTLED_MILLIS = 20;
    private static final long SETTLED_NANOS = TimeUnit.MILLISECONDS.toNanos(SETTLED_MILLIS);

    private final AtomicInteger count = new AtomicInteger();

    /** {@link LockEngine#callRemote}, counted until it answers. */
    <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> op) {
        count.incrementAndGet();
        CompletableFuture<T> f = LockEngine.callRemote(op);
        f.whenComplete((r, e) -> count.decrementAndGet());
        return f;
    }

    /** How many are in flight now. */
    int count() {
        return count.get();
    }

    /**
     * Waits until none has been in flight for {@value #SETTLED_MILLIS} ms (which covers a call that another's answer
     * starts on the callback executor), or until {@code deadlineNanos}; at once if none is in flight. An interrupt
     * does not cut the wait short and is restored after it.
     */
    void settle(String backendName, long deadlineNanos) {
        if (count.get() == 0) {
            return;
        }
        long quietSince = 0;
        boolean quiet = false;
        boolean interrupted = false;
        for (;;) {
            long now = System.nanoTime();
            if (count.get() > 0) {
                quiet = false;
            } else if (!quiet) {
                quiet = true;
                quietSince = now;
            } else if (now - quietSince >= SETTLED_NANOS) {
                break;
            }
            if (now - deadlineNanos >= 0) {
                log.warn("the {} client closed with {} call(s) to the backend still in flight (the operation timeout "
                        + "ran out); what they hold expires with its lease", backendName, count.get());
                break;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
