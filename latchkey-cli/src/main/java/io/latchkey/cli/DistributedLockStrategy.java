package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.cli.SaleStrategy.Purchase;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DistributedLock} per good around the same read-modify-write that oversells without it. Each simulated
 * client connects its own {@link LockClient}, so the lock has to exclude across clients, not only threads.
 */
final class DistributedLockStrategy implements SaleStrategy {

    private final LockBackend backend;
    private final String lockPrefix;
    private final Duration pause;
    private final Duration waitTime;

    DistributedLockStrategy(LockBackend backend, String lockPrefix, Duration pause, Duration waitTime) {
        this.backend = backend;
        this.lockPrefix = lockPrefix;
        this.pause = pause;
        this.waitTime = waitTime;
    }

    @Override
    public String name() {
        return "lock:" + backend.label();
    }

    @Override
    public String description() {
        return "DistributedLock on " + backend.description() + " around read, insert order, write (one lock per good).";
    }

    @Override
    public Node openNode(int index, long goodId) {
        LockClient client = backend.open();
        DistributedLock lock = client.lock(lockPrefix + "good:" + goodId);
        return new Node() {
            @Override
            public Purchase buy(Connection db, int buyer) throws Exception {
                long t0 = System.nanoTime();
                if (!lock.tryLock(waitTime.toMillis(), TimeUnit.MILLISECONDS)) {
                    return new Purchase(Result.GAVE_UP, 1, -1);
                }
                long acquired = System.nanoTime() - t0;
                try {
                    return CriticalSection.readModifyWrite(db, goodId, buyer, pause, acquired);
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
