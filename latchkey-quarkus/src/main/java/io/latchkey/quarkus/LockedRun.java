package io.latchkey.quarkus;

import io.latchkey.LockLease;
import io.latchkey.integration.CurrentLease;
import java.util.Optional;

/**
 * The lock of the {@link Locked} or {@link LockedScheduled} method running on the calling thread, so that the method
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

    private LockedRun() {
    }

    /**
     * {@return the lease of the {@code @Locked} method or {@code @LockedScheduled} run on this thread; empty outside
     * them} Its {@link LockLease#fencingToken()} is the token to pass to the storage the method writes to.
     */
    public static Optional<LockLease> currentLease() {
        return CurrentLease.get();
    }

    /**
     * {@return whether the {@code @Locked} method or {@code @LockedScheduled} run on this thread still holds its lock
     * as far as the client knows} That is {@link LockLease#isValid()} of its lease; {@code false} outside them.
     */
    public static boolean isLockValid() {
        return CurrentLease.isValid();
    }
}
