package io.latchkey.jdbc;

import io.latchkey.core.CountKind;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the SQL semaphore: one row of the counts table per semaphore (kind
 * {@code semaphore}) holding its free permits. Taking is one conditional {@code UPDATE}
 * ({@code … SET count_value = count_value - n WHERE … AND count_value >= n}): all or none, decided by the database
 * on the row's latest committed value, so concurrent takers never over-draw. Giving and adding are one
 * {@code UPDATE} (or an {@code INSERT} for a semaphore never set); draining is one short transaction that locks the
 * row. Permits have no owner and no lease: a client that crashes while holding some keeps them taken, as with
 * {@link java.util.concurrent.Semaphore}. The row stays once set (a semaphore set to 0 differs from one never set).
 */
final class JdbcSemaphoreOps extends JdbcCountOps {

    JdbcSemaphoreOps(JdbcRunner runner, CountTableSql sql, CountTableSchema schema, CountWakeups wakeups,
                     String namespace, long pollMillis) {
        super(runner, sql, schema, wakeups, namespace, CountKind.SEMAPHORE, pollMillis);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        String key = rowKey(name);
        return run("read the permits of", name, c -> {
            Long v = count(c, sql.selectCount, key);
            return v == null ? 0 : clamp(v);
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return setCountOnce(name, permits);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return addToCount("add permits to", name, delta);
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        String key = rowKey(name);
        return run("take permits of", name,
                c -> execute(c, sql.takeFromCount, (long) permits, kind, key, (long) permits) == 1);
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return addToCount("return permits to", name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        String key = rowKey(name);
        return run("drain the permits of", name, c -> inTransaction(c, tx -> {
            Long v = count(tx, sql.selectCountForUpdate, key);
            if (v == null || v <= 0) {
                return 0;
            }
            execute(tx, sql.setCount, 0L, kind, key);
            return clamp(v);
        }));
    }
}
