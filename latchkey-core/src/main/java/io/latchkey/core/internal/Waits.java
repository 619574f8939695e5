package io.latchkey.core.internal;

import io.latchkey.core.AcquireRequest;

/** Deadline arithmetic shared by the counted primitives. */
final class Waits {

    private Waits() {
    }

    /**
     * The {@link LockEngine#time} deadline of a wait of {@code waitNanos} from now: {@link AcquireRequest#NO_DEADLINE}
     * for a negative wait (as long as needed) or one too long to represent (beyond about 73 years).
     */
    static long deadline(LockEngine engine, long waitNanos) {
        if (waitNanos < 0 || waitNanos >= Long.MAX_VALUE / 4) {
            return AcquireRequest.NO_DEADLINE;
        }
        long d = engine.time.nanoTime() + waitNanos;
        return d == AcquireRequest.NO_DEADLINE ? d - 1 : d;
    }
}
