package io.latchkey.integration;

import io.latchkey.LockLease;
import java.util.ArrayDeque;
import java.util.Optional;

/**
 * The lease of the locked method ({@code @Locked}) or scheduled run ({@code @LockedSchedule}, {@code @LockedScheduled})
 * on the calling thread, kept for the integrations' interceptors: each framework's {@code LockedRun} shows it to the
 * method. In nested calls it is the innermost annotated method's lease; a nested {@code @Locked} call on the name an
 * outer {@code @Locked} call of this thread holds runs under that outer lease (same token, see
 * {@link #heldByLocked(String)}).
 *
 * <p>Each {@code enter} returns the lease it replaced, which the matching {@code exit} (in a {@code finally}) restores:
 * the thread is left as it was found, also when the method throws. Nothing here talks to a backend.
 */
public final class CurrentLease {

    private static final ThreadLocal<LockLease> CURRENT = new ThreadLocal<>();

    /** The leases {@code @Locked} calls of this thread hold, outermost first: what makes nested calls reenter. */
    private static final ThreadLocal<ArrayDeque<LockLease>> LOCKED = new ThreadLocal<>();

    private CurrentLease() {
    }

    /** {@return the lease of the locked method or scheduled run on this thread; empty outside them} */
    public static Optional<LockLease> get() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * {@return whether the locked method or scheduled run on this thread still holds its lock as far as the client
     * knows} That is {@link LockLease#isValid()} of its lease; {@code false} outside them.
     */
    public static boolean isValid() {
        LockLease lease = CURRENT.get();
        return lease != null && lease.isValid();
    }

    /**
     * A run starts with {@code lease}: it is current until {@link #exit(LockLease)}.
     *
     * @param lease the run's lease
     * @return the lease it replaces (null if none), for {@link #exit(LockLease)}
     */
    public static LockLease enter(LockLease lease) {
        LockLease previous = CURRENT.get();
        CURRENT.set(lease);
        return previous;
    }

    /**
     * {@return the lease a {@code @Locked} call of this thread holds on {@code name}, or null}
     *
     * @param name the lock name
     */
    public static LockLease heldByLocked(String name) {
        ArrayDeque<LockLease> held = LOCKED.get();
        if (held != null) {
            for (LockLease lease : held) {
                if (lease.lockName().equals(name)) {
                    return lease;
                }
            }
        }
        return null;
    }

    /**
     * A {@code @Locked} call starts with {@code lease}: it is current, and reentered by nested calls on its name until
     * {@link #exitLocked(LockLease, LockLease)}.
     *
     * @param lease the call's lease
     * @return the lease it replaces as current (null if none), for {@link #exitLocked(LockLease, LockLease)}
     */
    public static LockLease enterLocked(LockLease lease) {
        ArrayDeque<LockLease> held = LOCKED.get();
        if (held == null) {
            held = new ArrayDeque<>();
            LOCKED.set(held);
        }
        held.addLast(lease);
        return enter(lease);
    }

    /**
     * The {@code @Locked} call that {@link #enterLocked(LockLease) entered} with {@code lease} ended.
     *
     * @param lease the call's lease
     * @param previous what {@link #enterLocked(LockLease)} returned
     */
    public static void exitLocked(LockLease lease, LockLease previous) {
        ArrayDeque<LockLease> held = LOCKED.get();
        if (held != null) {
            held.removeLastOccurrence(lease);
            if (held.isEmpty()) {
                LOCKED.remove();
            }
        }
        exit(previous);
    }

    /**
     * The run that {@link #enter(LockLease) entered} ended: {@code previous} is current again.
     *
     * @param previous what {@link #enter(LockLease)} returned
     */
    public static void exit(LockLease previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
