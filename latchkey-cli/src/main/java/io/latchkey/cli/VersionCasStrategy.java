package io.latchkey.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.cli.SaleStrategy.Purchase;
import io.latchkey.jdbc.CasResult;
import io.latchkey.jdbc.CasUpdate;
import io.latchkey.jdbc.VersionCas;
import java.sql.Connection;
import java.time.Duration;

/**
 * The optimistic lock through the SQL backend's {@link VersionCas}: read stock and version, and write
 * {@code … version = version + 1 where id = ? and version = ?} with the order inserted in the same transaction;
 * a conflict retries with jittered backoff. The version only grows, so there is no ABA. Under heavy contention
 * most attempts fail, which is the known weakness of this strategy under contention.
 */
final class VersionCasStrategy implements SaleStrategy {

    private final String jdbcUrl;
    private final int threads;
    private final Duration pause;
    private final int maxAttempts;

    VersionCasStrategy(String jdbcUrl, int threads, Duration pause, int maxAttempts) {
        this.jdbcUrl = jdbcUrl;
        this.threads = threads;
        this.pause = pause;
        this.maxAttempts = maxAttempts;
    }

    @Override
    public String name() {
        return "db-optimistic";
    }

    @Override
    public String description() {
        return "Version CAS (VersionCas): read stockCount and version, then update … where version = ? and insert "
                + "the order in one transaction; on a conflict retry with backoff (at most " + maxAttempts
                + " attempts).";
    }

    @Override
    public boolean connectionPerThread() {
        return false;
    }

    @Override
    public Node openNode(int index, long goodId) {
        HikariDataSource pool = NodeDataSource.open(jdbcUrl, name(), index, threads);
        VersionCas goods = VersionCas.builder(pool, "seckill_good", "id", "version")
                .columns("stockCount")
                .maxAttempts(maxAttempts)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(20))
                .build();
        return new Node() {
            @Override
            public Purchase buy(Connection unused, int buyer) throws Exception {
                long t0 = System.nanoTime();
                CasResult r = goods.update(goodId, row -> {
                    long stock = row.getLong("stockCount");
                    if (stock <= 0) {
                        return CasUpdate.abort();
                    }
                    CriticalSection.pauseUninterruptibly(pause);
                    return CasUpdate.set("stockCount", stock - 1).andThen(tx -> {
                        FlashSaleDatabase.placeOrder(tx, goodId, buyer);
                        return null;
                    });
                });
                if (r.applied()) {
                    return new Purchase(Result.ORDERED, r.conflicts(), System.nanoTime() - t0);
                }
                return new Purchase(r.aborted() ? Result.SOLD_OUT : Result.GAVE_UP, r.conflicts(),
                        r.aborted() ? System.nanoTime() - t0 : -1);
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
