package io.latchkey.file.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the file semaphore: the state file {@code lk-<hash>.semaphore} holds the number of available
 * permits, read and rewritten inside the directory section, so concurrent takes and returns from any process are
 * never lost. Permits are unowned: a crashed holder's permits stay taken (as on every backend), and a semaphore that
 * was set stays set (its file stays: one file per semaphore ever set, never per waiter). A semaphore never set has
 * no file and 0 permits.
 */
public final class FileSemaphoreOps extends FileCountOps {

    public FileSemaphoreOps(LockDirectory directory, String namespace) {
        super(directory, namespace, CountKind.SEMAPHORE);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return change("read", name, (slot, s) -> slot.record == null ? 0 : clamp(slot.record.count));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return change("set permits of", name, (slot, s) -> {
            if (slot.record != null) {
                return false;
            }
            slot.orCreate().count = permits;
            slot.changed = true;
            slot.wake = permits > 0;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return change("add permits to", name, (slot, s) -> {
            slot.orCreate().count += delta;
            slot.changed = true;
            slot.wake = delta > 0;
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return change("take permits of", name, (slot, s) -> {
            if (slot.record == null || slot.record.count < permits) {
                return false;
            }
            slot.record.count -= permits;
            slot.changed = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return change("return permits to", name, (slot, s) -> {
            slot.orCreate().count += permits;
            slot.changed = true;
            slot.wake = true;
            return null;
        });
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return change("drain", name, (slot, s) -> {
            if (slot.record == null || slot.record.count <= 0) {
                return 0;
            }
            int taken = clamp(slot.record.count);
            slot.record.count -= taken;
            slot.changed = true;
            return taken;
        });
    }
}
