package io.latchkey.cli;

import io.latchkey.Capability;
import io.latchkey.DistributedLock;
import io.latchkey.FencedStore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.StaleLeaseException;
import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The stock kept in the lock's own fenced store ({@link LockClient#fencedStore}) instead of the database: each buyer
 * takes the good's lock with a fixed lease, reads the stock from the store, and decrements it with a fenced
 * {@code put}; the order row is written only after the store accepted the decrement. One buyer in 25 is paused past
 * its lease between reading and writing, as a GC pause would: another buyer takes the lock and sells meanwhile, and
 * the store refuses the paused buyer's stale write ({@link StaleLeaseException}), so it retries with a new lease
 * instead of overselling. The refused writes are the row's failed attempts.
 */
final class FencedStoreStrategy implements SaleStrategy {

    private static final String KEY = "stock";

    private final LockBackend backend;
    private final String lockPrefix;
    private final int stock;
    private final Duration pause;
    private final Duration waitTime;
    private final Duration lease;

    FencedStoreStrategy(LockBackend backend, String lockPrefix, int stock, Duration pause, Duration waitTime) {
        this.backend = backend;
        this.lockPrefix = lockPrefix;
        this.stock = stock;
        this.pause = pause;
        this.waitTime = waitTime;
        this.lease = pause.plusMillis(500);
    }

    /** Whether the backend keeps a fenced store (every built-in one does). */
    static boolean supported(LockBackend backend) {
        try (LockClient client = backend.open()) {
            return client.capabilities().contains(Capability.FENCED_STORE);
        }
    }

    @Override
    public String name() {
        return "store:" + backend.label();
    }

    @Override
    public String description() {
        return "stock in the lock's fenced store on " + backend.description() + ", decremented with a fenced put; one "
                + "buyer in 25 paused past its " + Durations.format(lease) + " lease has its stale write refused.";
    }

    private String lockName(long goodId) {
        return lockPrefix + "store-good:" + goodId;
    }

    @Override
    public Node openNode(int index, long goodId) throws Exception {
        LockClient client = backend.open();
        DistributedLock lock = client.lock(lockName(goodId));
        FencedStore store = client.fencedStore(lockName(goodId));
        if (index == 0) {
            try (LockLease l = lock.acquire()) {
                store.putString(l, KEY, Integer.toString(stock));
            }
        }
        return new Node() {
            @Override
            public Purchase buy(Connection db, int buyer) throws Exception {
                long t0 = System.nanoTime();
                int refused = 0;
                while (true) {
                    Optional<LockLease> granted = lock.tryAcquire(waitTime, lease);
                    if (granted.isEmpty()) {
                        return new Purchase(Result.GAVE_UP, refused + 1, -1);
                    }
                    long acquired = System.nanoTime() - t0;
                    LockLease l = granted.get();
                    try {
                        int left = store.getString(KEY).map(Integer::parseInt).orElse(0);
                        if (left <= 0) {
                            return new Purchase(Result.SOLD_OUT, refused, acquired);
                        }
                        boolean paused = refused == 0 && buyer % 25 == 7;
                        CriticalSection.pause(paused ? lease.plusMillis(100) : pause);
                        try {
                            store.putString(l, KEY, Integer.toString(left - 1));
                        } catch (StaleLeaseException e) {
                            refused++;
                            continue;
                        }
                        FlashSaleDatabase.placeOrder(db, goodId, buyer);
                        return new Purchase(Result.ORDERED, refused, acquired);
                    } finally {
                        try {
                            l.release();
                        } catch (LockLostException expired) {
                            // the paused buyer's lease ran out: the store already refused its write
                        }
                    }
                }
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    @Override
    public OptionalInt finalStock(long goodId) {
        try (LockClient client = backend.open()) {
            return client.fencedStore(lockName(goodId)).getString(KEY).map(s -> OptionalInt.of(Integer.parseInt(s)))
                    .orElse(OptionalInt.of(0));
        }
    }
}
