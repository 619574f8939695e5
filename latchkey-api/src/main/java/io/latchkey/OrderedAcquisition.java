package io.latchkey;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Takes every part of a multi-lock, all or nothing, without deadlocking against other multi-locks.
 *
 * <p>Parts are sorted by name. A part is waited for only while every part already held has a strictly smaller
 * name; otherwise (a part whose name equals a held part's name, on another backend) everything held is given back
 * first and the part is waited for holding nothing. A waiter therefore only ever waits for a name greater than
 * all it holds, or holds nothing, so no cycle of waiters can form, whatever order callers passed the locks in
 * and whichever JVM they run in.
 */
final class OrderedAcquisition {

    /** How one ownership mode takes and gives back one part. */
    interface PartTaker<H> {
        /**
         * Takes {@code part}, waiting at most {@code waitNanos} ({@link CombinatorArgs#FOREVER}: no limit; 0: one
         * try). Returns the hold, or {@code null} if the wait ran out.
         */
        H take(DistributedLock part, long waitNanos) throws InterruptedException;

        void giveBack(DistributedLock part, H hold);
    }

    private OrderedAcquisition() {
    }

    /**
     * Takes all {@code parts} (sorted by name) within {@code waitNanos}.
     *
     * @return the holds in part order, or {@code null} if the wait ran out; nothing is held then, nor when this
     *         throws
     */
    static <H> List<H> takeAll(List<DistributedLock> parts, PartTaker<H> taker, long waitNanos)
            throws InterruptedException {
        int n = parts.size();
        long deadline = CombinatorArgs.deadline(waitNanos);
        @SuppressWarnings("unchecked")
        H[] held = (H[]) new Object[n];
        try {
            int i = 0;
            while (i < n) {
                if (held[i] != null) {
                    i++;
                    continue;
                }
                DistributedLock part = parts.get(i);
                if (mayWaitFor(parts, held, i)) {
                    held[i] = taker.take(part, CombinatorArgs.remaining(deadline));
                    if (held[i] == null) {
                        giveBackAll(parts, taker, held, null);
                        return null;
                    }
                    i++;
                    continue;
                }
                held[i] = taker.take(part, 0);
                if (held[i] != null) {
                    i++;
                    continue;
                }
                giveBackAll(parts, taker, held, null);
                held[i] = taker.take(part, CombinatorArgs.remaining(deadline));
                if (held[i] == null) {
                    return null;
                }
                i = 0;
            }
            return new ArrayList<>(Arrays.asList(held));
        } catch (InterruptedException | RuntimeException | Error e) {
            giveBackAll(parts, taker, held, e);
            throw e;
        }
    }

    /** Whether every held part other than {@code i} has a name strictly before part {@code i}'s. */
    static boolean mayWaitFor(List<DistributedLock> parts, Object[] held, int i) {
        String name = parts.get(i).name();
        for (int j = 0; j < held.length; j++) {
            if (j != i && held[j] != null && parts.get(j).name().compareTo(name) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** Gives back every hold in reverse order; failures are added to {@code primary} or dropped. */
    static <H> void giveBackAll(List<DistributedLock> parts, PartTaker<H> taker, H[] held, Throwable primary) {
        for (int j = held.length - 1; j >= 0; j--) {
            if (held[j] != null) {
                H hold = held[j];
                held[j] = null;
                try {
                    taker.giveBack(parts.get(j), hold);
                } catch (RuntimeException e) {
                    // the acquisition failed anyway; a part that cannot be released expires with its lease
                    if (primary != null) {
                        primary.addSuppressed(e);
                    }
                }
            }
        }
    }
}
