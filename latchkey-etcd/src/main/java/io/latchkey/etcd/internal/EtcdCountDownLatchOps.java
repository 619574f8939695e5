package io.latchkey.etcd.internal;

import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The remote half of the etcd count-down latch: one key per latch ({@code latchkey/[<namespace>/]latches/<escaped
 * name>}) holding the count, changed only by compare-and-set ({@link EtcdCounter}). The count-down that reaches zero
 * deletes the key (a missing key counts as zero). The engine waits, woken by a watch on the key. The key has no lease:
 * an armed latch stays armed however long its clients are gone, like Redisson's and Curator's.
 */
public final class EtcdCountDownLatchOps implements RemoteCountOps {

    private final EtcdSession session;
    private final Function<String, String> keyOf;
    private final EtcdCounter counter;

    /** @param keyOf maps a latch name to its key */
    public EtcdCountDownLatchOps(EtcdSession session, Function<String, String> keyOf) {
        this.session = session;
        this.keyOf = keyOf;
        this.counter = new EtcdCounter(session);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return session.subscribe(keyOf.apply(name), false, changed);
    }

    /** Puts the count if the key is absent (the latch open): one transaction. */
    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return counter.putIfAbsent(keyOf.apply(name), count, "arm latch " + name);
    }

    /** Read, then a compare-and-set (delete at zero); again if another count-down came in between. */
    @Override
    public CompletableFuture<Void> countDown(String name) {
        return counter.update(keyOf.apply(name), "count down latch " + name,
                v -> v == null ? EtcdCounter.Change.none((Void) null)
                        : v <= 1 ? EtcdCounter.Change.delete((Void) null)
                        : EtcdCounter.Change.put(v - 1, (Void) null));
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return counter.read(keyOf.apply(name)).thenApply(v -> v == null ? 0L : Math.max(0L, v));
    }
}
