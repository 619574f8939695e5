package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lease-table statements against a real database, below the engine: one subclass per database. */
abstract class LeaseTableLockOpsTest {

    abstract SqlDialect dialect();

    HikariDataSource ds;
    JdbcRunner runner;
    LeaseTableLockOps ops;

    @BeforeEach
    void setUp() {
        ds = TestDatabases.pool(TestDatabases.jdbcUrl(dialect()), 8);
        runner = new JdbcRunner(ds, "test", Duration.ofSeconds(5), 8, "test-jdbc");
        String table = TestDatabases.table("ops");
        runner.call("ddl", c -> {
            try (var s = c.createStatement()) {
                s.execute(dialect().lockTableDdl(table));
            }
            return null;
        });
        ops = new LeaseTableLockOps(runner, new LeaseTableSql(dialect(), table), "ns:", TimeSource.SYSTEM, 50,
                "test-jdbc");
    }

    @AfterEach
    void tearDown() {
        ops.close();
        runner.close();
        ds.close();
    }

    static AcquireRequest request(String name, String owner, long leaseMillis, Duration wait) {
        long deadline = wait == null ? AcquireRequest.NO_DEADLINE : System.nanoTime() + wait.toNanos();
        return new AcquireRequest(name, owner, leaseMillis, false, deadline, TimeSource.SYSTEM);
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void excludesOtherOwnersAndCountsTokensAcrossReleases() throws Exception {
        Grant a = await(ops.acquire(request("l1", "A", 10_000, Duration.ZERO)));
        assertThat(a).isNotNull();
        assertThat(a.fencingToken()).isEqualTo(1);
        assertThat(await(ops.isLocked("l1"))).isTrue();
        assertThat(await(ops.acquire(request("l1", "B", 10_000, Duration.ZERO)))).isNull();
        assertThat(await(ops.acquire(request("l1", "B", 10_000, Duration.ofMillis(150))))).isNull();

        Grant stale = new Grant("l1", "A", 99, 10_000, false, 0, null);
        assertThat(await(ops.release(stale))).isFalse();
        assertThat(await(ops.release(a))).isTrue();
        assertThat(await(ops.release(a))).isFalse();
        assertThat(await(ops.isLocked("l1"))).isFalse();

        Grant b = await(ops.acquire(request("l1", "B", 10_000, Duration.ZERO)));
        assertThat(b.fencingToken()).isEqualTo(2);
        assertThat(await(ops.forceUnlock("l1"))).isTrue();
        assertThat(await(ops.forceUnlock("l1"))).isFalse();
        assertThat(await(ops.release(b))).isFalse();
        assertThat(await(ops.acquire(request("l1", "C", 10_000, Duration.ZERO))).fencingToken()).isEqualTo(3);
    }

    @Test
    void expiryIsDecidedByTheDatabaseAndNeverResetsTheToken() throws Exception {
        Grant a = await(ops.acquire(request("l2", "A", 300, Duration.ZERO)));
        long start = System.nanoTime();
        Grant b = await(ops.acquire(request("l2", "B", 10_000, Duration.ofSeconds(5))));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(b).isNotNull();
        assertThat(b.fencingToken()).isEqualTo(a.fencingToken() + 1);
        assertThat(waitedMs).isBetween(150L, 2_500L);
        assertThat(await(ops.release(a))).isFalse();
        assertThat(await(ops.renew(List.of(a)))).containsExactly(a);
    }

    @Test
    void renewsABatchInOneGoAndReportsTheLost() throws Exception {
        // Leases of 1.5 s renewed every 0.5 s for 2 s: they outlive their first lease only by being renewed.
        Grant g1 = await(ops.acquire(request("r1", "A", 1_500, Duration.ZERO)));
        Grant g2 = await(ops.acquire(request("r2", "A", 1_500, Duration.ZERO)));
        Grant g3 = await(ops.acquire(request("r3", "A", 1_500, Duration.ZERO)));
        await(ops.forceUnlock("r2"));
        for (int i = 0; i < 4; i++) {
            Thread.sleep(500);
            Set<Grant> lost = await(ops.renew(List.of(g1, g2, g3)));
            assertThat(lost).containsExactly(g2);
        }
        assertThat(await(ops.isLocked("r1"))).isTrue();
        assertThat(await(ops.isLocked("r3"))).isTrue();
        assertThat(await(ops.renew(List.of()))).isEmpty();
    }

    @Test
    void handsOffWithANewTokenWithoutFreeingTheLock() throws Exception {
        Grant a = await(ops.acquire(request("h1", "A", 10_000, Duration.ZERO)));
        Grant b = await(ops.handOff(a, request("h1", "B", 10_000, Duration.ZERO)));
        assertThat(b.fencingToken()).isEqualTo(a.fencingToken() + 1);
        assertThat(b.ownerId()).isEqualTo("B");
        assertThat(await(ops.release(a))).isFalse();
        assertThat(await(ops.handOff(a, request("h1", "C", 10_000, Duration.ZERO)))).isNull();
        assertThat(await(ops.release(b))).isTrue();
    }

    @Test
    void aWaiterIsWokenSoonAfterTheRelease() throws Exception {
        Grant a = await(ops.acquire(request("w1", "A", 30_000, Duration.ZERO)));
        CompletableFuture<Grant> waiting = ops.acquire(request("w1", "B", 30_000, Duration.ofSeconds(10)));
        Thread.sleep(300);
        assertThat(waiting).isNotDone();
        long released = System.nanoTime();
        assertThat(await(ops.release(a))).isTrue();
        Grant b = await(waiting);
        long latencyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertThat(b.fencingToken()).isEqualTo(a.fencingToken() + 1);
        // Generous bounds for a loaded 2-core CI machine: NOTIFY typically takes a few ms, polling up to 50 ms here.
        assertThat(latencyMs).isLessThan(dialect() == SqlDialect.POSTGRESQL ? 600 : 1_000);
    }

    @Test
    void aCancelledWaiterCompletesEmptyAndTakesNothing() throws Exception {
        Grant a = await(ops.acquire(request("c1", "A", 30_000, Duration.ZERO)));
        AcquireRequest r = request("c1", "B", 30_000, null);
        CompletableFuture<Grant> waiting = ops.acquire(r);
        Thread.sleep(100);
        r.cancel();
        assertThat(await(waiting)).isNull();
        assertThat(await(ops.release(a))).isTrue();
        assertThat(await(ops.isLocked("c1"))).isFalse();
    }

    @Test
    void theSameOwnerReacquiresWithItsToken() throws Exception {
        Grant a = await(ops.acquire(request("s1", "A", 10_000, Duration.ZERO)));
        Grant again = await(ops.acquire(request("s1", "A", 10_000, Duration.ZERO)));
        assertThat(again.fencingToken()).isEqualTo(a.fencingToken());
        assertThat(await(ops.release(a))).isTrue();
    }
}
