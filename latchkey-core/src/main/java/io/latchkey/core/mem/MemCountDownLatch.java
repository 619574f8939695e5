package io.latchkey.core.mem;

import io.latchkey.DistributedCountDownLatch;
import io.latchkey.core.Arguments;
import java.time.Duration;

/** A {@link DistributedCountDownLatch} on the mem server; waiters are futures completed at zero. */
final class MemCountDownLatch implements DistributedCountDownLatch {

    private final MemLockClient client;
    private final String name;
    private final String key;

    MemCountDownLatch(MemLockClient client, String name, String key) {
        this.client = client;
        this.name = name;
        this.key = key;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean trySetCount(long count) {
        Arguments.positive("count", count);
        client.ensureOpen();
        return store().trySetCount(key, count);
    }

    @Override
    public void countDown() {
        client.ensureOpen();
        store().countDown(key);
    }

    @Override
    public long getCount() {
        client.ensureOpen();
        return store().getCount(key);
    }

    @Override
    public void await() throws InterruptedException {
        awaitUntil(Long.MAX_VALUE);
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        return awaitUntil(Arguments.waitDeadline(timeout));
    }

    private boolean awaitUntil(long deadline) throws InterruptedException {
        client.ensureOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return Boolean.TRUE.equals(MemWaits.await(client.track(store().await(key, deadline)), open -> { }));
    }

    private MemSynchronizerStore store() {
        return client.server().synchronizers;
    }

    @Override
    public String toString() {
        return "DistributedCountDownLatch{name='" + name + "', backend=mem}";
    }
}
