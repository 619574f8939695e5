package io.latchkey.spring;

import io.latchkey.LockLease;
import java.util.Optional;

/**
 * The lock of the {@link LockedSchedule} method running on the calling thread, so that a long run can check whether
 * it still holds its lock (and pass the fencing token to what it writes):
 *
 * <pre>{@code
 * for (Batch batch : batches) {
 *     if (!LockedRun.isLockValid()) {
 *         return; // lost: another node may run the next tick
 *     }
 *     store.write(batch, LockedRun.currentLease().orElseThrow().fencingToken());
 * }
 * }</pre>
 */
public final class LockedRun {

    private static final ThreadLocal<LockLease> CURRENT = new ThreadLocal<>();

    private LockedRun() {
    }

    /** {@return the lease of the {@code @LockedSchedule} run on this thread; empty outside such a run} */
    public static Optional<LockLease> currentLease() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * {@return whether the {@code @LockedSchedule} run on this thread still holds its lock as far as the client
     * knows} That is {@link LockLease#isValid()} of its lease; {@code false} outside such a run.
     */
    public static boolean isLockValid() {
        LockLease lease = CURRENT.get();
        return lease != null && lease.isValid();
    }

    static LockLease enter(LockLease lease) {
        LockLease previous = CURRENT.get();
        CURRENT.set(lease);
        return previous;
    }

    static void exit(LockLease previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
