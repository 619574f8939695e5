package io.latchkey.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.cli.SaleStrategy.Purchase;
import io.latchkey.jdbc.RowLock;
import io.latchkey.jdbc.RowLockTimeoutException;
import java.sql.Connection;
import java.time.Duration;

/**
 * The pessimistic lock through the SQL backend's {@link RowLock}: inside a transaction,
 * {@code select … for update} locks the good's row until commit, so buyers queue on the database. Each purchase
 * holds a pooled connection (and the database lock) for its whole critical section.
 */
final class RowLockStrategy implements SaleStrategy {

    private final String jdbcUrl;
    private final int threads;
    private final Duration pause;

    RowLockStrategy(String jdbcUrl, int threads, Duration pause) {
        this.jdbcUrl = jdbcUrl;
        this.threads = threads;
        this.pause = pause;
    }

    @Override
    public String name() {
        return "db-pessimistic";
    }

    @Override
    public String description() {
        return "Row lock (RowLock): begin; select … for update; read stockCount; insert the order; update "
                + "stockCount; commit. Buyers queue on the database row.";
    }

    @Override
    public boolean connectionPerThread() {
        return false;
    }

    @Override
    public Node openNode(int index, long goodId) {
        HikariDataSource pool = NodeDataSource.open(jdbcUrl, name(), index, threads);
        RowLock goods = RowLock.of(pool, "seckill_good", "id");
        return new Node() {
            @Override
            public Purchase buy(Connection unused, int buyer) throws Exception {
                long t0 = System.nanoTime();
                long[] acquired = {-1};
                try {
                    // The database's own lock wait applies (the embedded H2 URL sets LOCK_TIMEOUT=30000): the timed
                    // variant changes the session's lock timeout on every call, an extra round trip per purchase.
                    boolean ordered = goods.withLockedRow(goodId, tx -> {
                        acquired[0] = System.nanoTime() - t0;
                        int stock = FlashSaleDatabase.readStock(tx, goodId, false);
                        if (stock <= 0) {
                            return false;
                        }
                        FlashSaleDatabase.placeOrder(tx, goodId, buyer);
                        CriticalSection.pauseUninterruptibly(pause);
                        FlashSaleDatabase.decrementStock(tx, goodId);
                        return true;
                    });
                    return new Purchase(ordered ? Result.ORDERED : Result.SOLD_OUT, 0, acquired[0]);
                } catch (RowLockTimeoutException e) {
                    return new Purchase(Result.GAVE_UP, 1, -1);
                }
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
