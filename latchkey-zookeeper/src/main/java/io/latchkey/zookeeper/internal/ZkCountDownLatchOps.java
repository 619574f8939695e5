package io.latchkey.zookeeper.internal;

import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The remote half of the ZooKeeper count-down latch: one persistent node per latch
 * ({@code /latchkey[/<ns>]/latches/<escaped name>}) holding the count ({@link ZkCounter}: no count-down is lost).
 * The count-down that reaches zero deletes it, so an open latch leaves nothing on the server (a missing node counts
 * as zero), and an armed latch stays armed however long its clients are gone. Waiters are woken by a persistent
 * watch on the node ({@link ZkWatches}).
 */
public final class ZkCountDownLatchOps implements RemoteCountOps {

    private final Function<String, String> pathOf;
    private final ZkCounter counter;
    private final ZkWatches watches;

    /** @param pathOf maps a latch name to its node's full path */
    public ZkCountDownLatchOps(ZkSession session, ZkWatches watches, Function<String, String> pathOf) {
        this.pathOf = pathOf;
        this.counter = new ZkCounter(new ZkAsync(session));
        this.watches = watches;
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return watches.subscribe(pathOf.apply(name), changed);
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return counter.update(pathOf.apply(name), "arm latch " + name,
                v -> v == null || v <= 0 ? ZkCounter.Change.put(count, true) : ZkCounter.Change.none(false));
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        return counter.update(pathOf.apply(name), "count down latch " + name,
                v -> v == null || v <= 0 ? ZkCounter.Change.none((Void) null)
                        : v == 1 ? ZkCounter.Change.delete((Void) null)
                        : ZkCounter.Change.put(v - 1, (Void) null));
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return counter.read(pathOf.apply(name), "read latch " + name).thenApply(v -> v == null ? 0L : Math.max(0, v));
    }
}
