package io.latchkey.core.mem;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The remote half of the mem semaphores, permit-expirable semaphores and latches on the engine's counted contract:
 * each call is one look at the server's {@link MemCountStore} (no I/O; futures complete at once, failed with
 * {@link io.latchkey.LockUnavailableException} while the server is down). Permits are not renewed by a watchdog
 * here ({@link #renewsPermits()} is {@code false}): a leased permit ends with its lease on the server's clock.
 */
final class MemCountOps implements RemoteCountOps {

    private final MemCountStore store;
    private final Function<String, String> keyOf;

    /** @param keyOf maps a name to its key in the store (one key space per kind and namespace) */
    MemCountOps(MemCountStore store, Function<String, String> keyOf) {
        this.store = store;
        this.keyOf = keyOf;
    }

    private static <T> CompletableFuture<T> call(Supplier<T> body) {
        try {
            return CompletableFuture.completedFuture(body.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        Runnable unsubscribe = store.subscribe(keyOf.apply(name), changed);
        return CompletableFuture.completedFuture(unsubscribe::run);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return call(() -> store.availablePermits(keyOf.apply(name)));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return call(() -> store.trySetPermits(keyOf.apply(name), permits));
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return call(() -> {
            store.addPermits(keyOf.apply(name), delta);
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return call(() -> store.tryTake(keyOf.apply(name), permits));
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return call(() -> {
            store.give(keyOf.apply(name), permits);
            return null;
        });
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return call(() -> store.drainPermits(keyOf.apply(name)));
    }

    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        if (watchdog) {
            throw new UnsupportedOperationException("the mem backend does not renew permits");
        }
        long sentAt = System.nanoTime();
        return call(() -> {
            long token = store.tryLease(keyOf.apply(name), permitId, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            return token > 0 ? Attempt.granted(new Grant(name, permitId, token, leaseMillis, false, sentAt, null))
                    : Attempt.busy(-token); // look again when the earliest lease ends
        });
    }

    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        return call(() -> store.release(keyOf.apply(name), permitId));
    }

    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        return call(() -> store.updateLease(keyOf.apply(name), permitId, TimeUnit.MILLISECONDS.toNanos(leaseMillis)));
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return call(() -> store.trySetCount(keyOf.apply(name), count));
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        return call(() -> {
            store.countDown(keyOf.apply(name));
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return call(() -> store.getCount(keyOf.apply(name)));
    }
}
