package io.latchkey.jdbc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.testing.sql.PgBouncerServer;
import io.latchkey.testing.sql.PostgresServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How long a waiter in another client takes to get a released lock, directly on PostgreSQL and through PgBouncer in
 * transaction pooling mode (same server, same run): the holder keeps the lock 50 ms, then releases; the time from
 * the release to the waiter's grant is one hand-off. Prints p50/p99 of each.
 */
class PgBouncerHandOffTest {

    static final int HAND_OFFS = 30;

    @Test
    void handOffThroughPgBouncerIsFastWithoutASession() throws Exception {
        String direct = PostgresServer.shared().jdbcUrl();
        String pooled = PgBouncerServer.shared().jdbcUrl();
        long[] d = handOffs(direct, JdbcOptions.defaults());
        long[] p = handOffs(pooled, JdbcOptions.defaults());
        long[] l = handOffs(pooled, JdbcOptions.builder().listenUrl(direct).build());
        System.out.printf("hand-off over %d: direct p50 %.1f ms p99 %.1f ms; PgBouncer (polling) p50 %.1f ms p99 %.1f ms;"
                        + " PgBouncer + direct listenUrl p50 %.1f ms p99 %.1f ms%n", HAND_OFFS, ms(d, 50), ms(d, 99),
                ms(p, 50), ms(p, 99), ms(l, 50), ms(l, 99));
        assertTrue(ms(p, 50) <= 100, "p50 through PgBouncer " + ms(p, 50) + " ms");
        assertTrue(ms(l, 50) <= 100, "p50 through PgBouncer with a listenUrl " + ms(l, 50) + " ms");
    }

    private static long[] handOffs(String url, JdbcOptions jdbcOptions) throws Exception {
        String table = TestDatabases.table("handoff");
        JdbcOptions o = JdbcOptions.builder().tableName(table).listenUrl(jdbcOptions.listenUrl().orElse(null)).build();
        long[] nanos = new long[HAND_OFFS];
        try (JdbcLockClient holder = JdbcLockClient.create(url, 4, ClientOptions.defaults(), o);
             JdbcLockClient waiter = JdbcLockClient.create(url, 4, ClientOptions.defaults(), o)) {
            for (int i = -3; i < HAND_OFFS; i++) {
                String name = "handoff-" + i;
                DistributedLock held = holder.lock(name);
                LockLease lease = held.acquire(Duration.ofSeconds(30));
                long[] released = new long[1];
                CompletableFuture<Long> got = CompletableFuture.supplyAsync(() -> {
                    try {
                        Optional<LockLease> l = waiter.lock(name).tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(30));
                        long at = System.nanoTime();
                        l.orElseThrow().release();
                        return at;
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(50);
                released[0] = System.nanoTime();
                lease.release();
                long at = got.get(15, TimeUnit.SECONDS);
                if (i >= 0) {
                    nanos[i] = at - released[0];
                }
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static double ms(long[] sorted, int percentile) {
        int i = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
        return sorted[i] / 1e6;
    }
}
