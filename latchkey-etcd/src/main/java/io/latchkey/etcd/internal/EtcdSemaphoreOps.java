package io.latchkey.etcd.internal;

import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The remote half of the etcd semaphore: one key per semaphore ({@code latchkey/[<namespace>/]semaphores/<escaped
 * name>}) whose value is the number of available permits, changed only by compare-and-set on its mod revision
 * ({@link EtcdCounter}). Taking permits lowers it, returning or adding raises it; every change is a watch event
 * on the key, which wakes waiters ({@link EtcdChanges}). The key has no lease: permits are unowned, so a crashed
 * holder's permits stay taken (as with every backend's plain semaphore), and a semaphore that was set stays set.
 */
public final class EtcdSemaphoreOps implements RemoteCountOps {

    private final EtcdSession session;
    private final Function<String, String> keyOf;
    private final EtcdCounter counter;

    /** @param keyOf maps a semaphore name to its key */
    public EtcdSemaphoreOps(EtcdSession session, Function<String, String> keyOf) {
        this.session = session;
        this.keyOf = keyOf;
        this.counter = new EtcdCounter(session);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return EtcdChanges.subscribe(session, keyOf.apply(name), false, changed);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return counter.read(keyOf.apply(name)).thenApply(v -> v == null ? 0 : (int) (long) v);
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return counter.putIfAbsent(keyOf.apply(name), permits, "set permits of semaphore " + name);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return counter.update(keyOf.apply(name), "add permits to semaphore " + name,
                v -> EtcdCounter.Change.put((v == null ? 0 : v) + delta, (Void) null));
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return counter.update(keyOf.apply(name), "take permits of semaphore " + name,
                v -> v == null || v < permits ? EtcdCounter.Change.none(false)
                        : EtcdCounter.Change.put(v - permits, true));
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return addPermits(name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return counter.update(keyOf.apply(name), "drain semaphore " + name,
                v -> v == null || v <= 0 ? EtcdCounter.Change.none(0) : EtcdCounter.Change.put(0, (int) (long) v));
    }
}
