package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.cli.SaleStrategy.Purchase;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A segmented lock (分段锁) for a hot item: the stock is split into K rows, each with its own lock, and
 * buyers are spread over them, so K purchases proceed at once instead of one. A buyer whose segment is sold out
 * moves on to the next one, so the sale ends only when every segment is empty.
 */
final class SegmentedLockStrategy implements SaleStrategy {

    private final LockBackend backend;
    private final String lockPrefix;
    private final int segments;
    private final Duration pause;
    private final Duration waitTime;

    SegmentedLockStrategy(LockBackend backend, String lockPrefix, int segments, Duration pause, Duration waitTime) {
        this.backend = backend;
        this.lockPrefix = lockPrefix;
        this.segments = segments;
        this.pause = pause;
        this.waitTime = waitTime;
    }

    @Override
    public String name() {
        return "segmented:" + backend.label();
    }

    @Override
    public String description() {
        return "Stock split into " + segments + " segments, each behind its own DistributedLock on "
                + backend.description() + "; each buyer starts at a random segment and moves on when it is "
                + "empty.";
    }

    @Override
    public boolean segmented() {
        return true;
    }

    @Override
    public Node openNode(int index, long goodId) {
        LockClient client = backend.open();
        DistributedLock[] locks = new DistributedLock[segments];
        // Stock only goes down, so a segment seen empty under its lock stays empty: later buyers of this client
        // skip it instead of queueing for its lock just to find nothing there.
        AtomicIntegerArray soldOut = new AtomicIntegerArray(segments);
        for (int s = 0; s < segments; s++) {
            locks[s] = client.lock(lockPrefix + "good:" + goodId + ":segment:" + s);
        }
        return new Node() {
            @Override
            public Purchase buy(Connection db, int buyer) throws Exception {
                long waited = 0;
                boolean acquiredAny = false;
                int failed = 0;
                // A random first segment spreads buyers evenly whatever client or thread serves them.
                int first = ThreadLocalRandom.current().nextInt(segments);
                for (int i = 0; i < segments; i++) {
                    int segment = (first + i) % segments;
                    if (soldOut.get(segment) == 1) {
                        continue;
                    }
                    DistributedLock lock = locks[segment];
                    long t0 = System.nanoTime();
                    if (!lock.tryLock(waitTime.toMillis(), TimeUnit.MILLISECONDS)) {
                        failed++;
                        continue;
                    }
                    waited += System.nanoTime() - t0;
                    acquiredAny = true;
                    try {
                        int stock = FlashSaleDatabase.readSegmentStock(db, goodId, segment);
                        if (stock > 0) {
                            FlashSaleDatabase.placeOrder(db, goodId, buyer);
                            CriticalSection.pause(pause);
                            FlashSaleDatabase.writeSegmentStock(db, goodId, segment, stock - 1);
                            return new Purchase(Result.ORDERED, failed, waited);
                        }
                        soldOut.set(segment, 1);
                    } finally {
                        lock.unlock();
                    }
                }
                return new Purchase(failed > 0 ? Result.GAVE_UP : Result.SOLD_OUT, failed, 
                        acquiredAny ? waited : -1);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
