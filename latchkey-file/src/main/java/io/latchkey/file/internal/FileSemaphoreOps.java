package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
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
        return change("read", name, (loaded, s) -> loaded.record == null ? 0 : clamp(loaded.record.count));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return setCountOnce(name, permits);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return addToCount(name, delta);
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return change("take permits of", name, (loaded, s) -> {
            if (loaded.record == null || loaded.record.count < permits) {
                return false;
            }
            loaded.record.count -= permits;
            loaded.changed = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return change("return permits to", name, (loaded, s) -> {
            loaded.orCreate().count += permits;
            loaded.changed = true;
            loaded.wake = true;
            return null;
        });
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return change("drain", name, (loaded, s) -> {
            if (loaded.record == null || loaded.record.count <= 0) {
                return 0;
            }
            long taken = loaded.record.count;
            loaded.record.count = 0;
            loaded.changed = true;
            return clamp(taken); // all of them, as on every backend; the answer saturates
        });
    }
}
