package io.latchkey.micronaut;

import io.latchkey.LockLease;
import java.util.Optional;

/**
 * The lock of the {@link Locked} or {@link LockedSchedule} method running on the calling thread, so that the method
 * can pass its fencing token to what it writes, and a long run can check whether it still holds its lock:
 *
 * <pre>{@code
 * for (Batch batch : batches) {
 *     if (!LockedRun.isLockValid()) {
 *         return; // lost: another node may run the next tick
 *     }
 *     store.write(batch, LockedRun.currentLease().orElseThrow().fencingToken());
 * }
 * }</pre>
 *
 * <p>In nested calls it is the innermost annotated method's lease; a nested {@code @Locked} call on the name an outer
 * {@code @Locked} call of this thread holds runs under that outer lease (same token).
 */
public final class LockedRun {

    private static final ThreadLocal<LockLease> CURRENT = new ThreadLocal<>();

    /** The leases {@code @Locked} calls of this thread hold, outermost first: what makes nested calls reenter. */
    private static final ThreadLocal<java.util.ArrayDeque<LockLease>> LOCKED = new ThreadLocal<>();

    private LockedRun() {
    }

    /**
     * {@return the lease of the {@code @Locked} method or {@code @LockedSchedule} run on this thread; empty outside
     * them} Its {@link LockLease#fencingToken()} is the token to pass to the storage the method writes to.
     */
    public static Optional<LockLease> currentLease() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * {@return whether the {@code @Locked} method or {@code @LockedSchedule} run on this thread still holds its lock
     * as far as the client knows} That is {@link LockLease#isValid()} of its lease; {@code false} outside them.
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

    /** The lease a {@code @Locked} call of this thread holds on {@code name}, or null. */
    static LockLease heldByLocked(String name) {
        java.util.ArrayDeque<LockLease> held = LOCKED.get();
        if (held != null) {
            for (LockLease lease : held) {
                if (lease.lockName().equals(name)) {
                    return lease;
                }
            }
        }
        return null;
    }

    /** A {@code @Locked} call starts with {@code lease}: it is current, and reentered by nested calls on its name. */
    static LockLease enterLocked(LockLease lease) {
        java.util.ArrayDeque<LockLease> held = LOCKED.get();
        if (held == null) {
            held = new java.util.ArrayDeque<>();
            LOCKED.set(held);
        }
        held.addLast(lease);
        return enter(lease);
    }

    static void exitLocked(LockLease lease, LockLease previous) {
        java.util.ArrayDeque<LockLease> held = LOCKED.get();
        if (held != null) {
            held.removeLastOccurrence(lease);
            if (held.isEmpty()) {
                LOCKED.remove();
            }
        }
        exit(previous);
    }

    static void exit(LockLease previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
