package io.latchkey.cli;

import io.latchkey.cli.SaleStrategy.Purchase;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The seeds' optimistic lock: read stock and version, place the order, then
 * {@code update … set stockCount = stockCount - 1, version = version + 1 where id = ? and version = ?}; zero rows
 * updated means someone else won, so roll back, back off and retry. The version only grows, so there is no ABA.
 * Under heavy contention most attempts fail, which is the seeds' warning about this strategy.
 */
final class VersionCasStrategy implements SaleStrategy {

    private final Duration pause;
    private final int maxAttempts;

    VersionCasStrategy(Duration pause, int maxAttempts) {
        this.pause = pause;
        this.maxAttempts = maxAttempts;
    }

    @Override
    public String name() {
        return "db-optimistic";
    }

    @Override
    public String description() {
        return "Version CAS: read stockCount and version, insert the order, update … where version = ?; on a "
                + "conflict roll back and retry with backoff (at most " + maxAttempts + " attempts).";
    }

    @Override
    public Node openNode(int index, long goodId) {
        return new Node() {
            @Override
            public Purchase buy(Connection db, int buyer) throws Exception {
                long t0 = System.nanoTime();
                int conflicts = 0;
                db.setAutoCommit(false);
                try {
                    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
                        long[] row = FlashSaleDatabase.readStockAndVersion(db, goodId);
                        if (row[0] <= 0) {
                            db.rollback();
                            return new Purchase(Result.SOLD_OUT, conflicts, System.nanoTime() - t0);
                        }
                        FlashSaleDatabase.placeOrder(db, goodId, buyer);
                        CriticalSection.pause(pause);
                        if (FlashSaleDatabase.decrementIfVersion(db, goodId, row[1])) {
                            db.commit();
                            return new Purchase(Result.ORDERED, conflicts, System.nanoTime() - t0);
                        }
                        db.rollback();
                        conflicts++;
                        backOff(attempt);
                    }
                    return new Purchase(Result.GAVE_UP, conflicts, -1);
                } finally {
                    db.setAutoCommit(true);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    /** Full jitter, capped: spreads the retries of buyers that collided so they do not collide again in step. */
    private static void backOff(int attempt) throws InterruptedException {
        long capMicros = Math.min(20_000, 500L << Math.min(attempt, 6));
        long micros = ThreadLocalRandom.current().nextLong(capMicros);
        Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
    }
}
