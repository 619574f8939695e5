package io.latchkey.core.internal;

import io.latchkey.DistributedCountDownLatch;
import io.latchkey.core.Arguments;
import io.latchkey.core.RemoteCountOps;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's {@link DistributedCountDownLatch} on a backend's {@link RemoteCountOps}: {@code trySetCount},
 * {@code countDown} and {@code getCount} are one bounded remote call each; {@code await} waits in the name's
 * {@link NameState}, where every waiting thread of this client shares one subscription and one remote look at
 * a time, and all of them are released together when a look finds the count at zero. {@code await} honours
 * interruption (the flag cleared as it throws); a timed {@code await} returns {@code false} after about its wait.
 * Actions before a {@code countDown} that opens the latch happen-before a successful {@code await} return only as
 * far as the backend orders them (one server, linearizable writes and reads: etcd, Redis, ZooKeeper's sync).
 */
final class EngineCountDownLatch implements DistributedCountDownLatch {

    private final LockEngine engine;
    private final RemoteCountOps ops;
    private final String name;
    private final NameKey.Count<Boolean> key;

    EngineCountDownLatch(LockEngine engine, RemoteCountOps ops, String name) {
        this.engine = engine;
        this.ops = ops;
        this.name = name;
        this.key = new NameKey.Count<>(ops, name, CountKinds.LATCH);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean trySetCount(long count) {
        Arguments.positive("count", count);
        engine.checkOpen();
        return engine.awaitRemote(ops.trySetCount(name, count), "trySetCount", name);
    }

    @Override
    public void countDown() {
        engine.checkOpen();
        engine.awaitRemote(ops.countDown(name), "countDown", name);
    }

    @Override
    public long getCount() {
        engine.checkOpen();
        return engine.awaitRemote(ops.getCount(name), "getCount", name);
    }

    @Override
    public void await() throws InterruptedException {
        awaitZero(-1);
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        return awaitZero(Checks.waitNanos(timeout));
    }

    private boolean awaitZero(long waitNanos) throws InterruptedException {
        engine.checkOpen();
        if (waitNanos == 0) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted before looking at latch '" + name + "'");
            }
            return getCount() <= 0;
        }
        return CountKinds.await(engine, key, 1, waitNanos) != null;
    }

    @Override
    public CompletableFuture<Boolean> awaitAsync(Duration timeout) {
        long waitNanos = Checks.waitNanos(timeout);
        engine.checkOpen();
        if (waitNanos == 0) {
            return engine.boundedRemote(ops.getCount(name), "getCount", name).thenApply(c -> c <= 0);
        }
        return CountKinds.submit(engine, key, 1, waitNanos, r -> r != null);
    }

    @Override
    public CompletableFuture<Void> countDownAsync() {
        engine.checkOpen();
        return engine.boundedRemote(ops.countDown(name), "countDown", name);
    }

    @Override
    public String toString() {
        return "CountDownLatch{name='" + name + "', backend=" + engine.backendName + "}";
    }
}
