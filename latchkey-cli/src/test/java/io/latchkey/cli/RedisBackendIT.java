package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.RedisServerExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code --backend redis://…} against a real redis-server with a password that must never be printed. */
class RedisBackendIT {

    private static final String PASSWORD = "hunter22-secret";

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.builder().requirePass(PASSWORD).build();

    @Test
    void demoAddsALockAndASegmentedRowForTheRedisBackend() {
        String uri = "redis://:" + PASSWORD + "@127.0.0.1:" + REDIS.port();
        CliProcess.Result r = CliProcess.run("demo", "--no-embedded", "--backend", uri, "--stock", "20", "--buyers",
                "40", "--strategies", "none,lock,segmented");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(r.stdout());
        assertThat(rows).containsOnlyKeys("none", "lock:redis", "segmented:redis");
        assertThat(rows.get("none").oversold()).isPositive();
        assertThat(rows.get("lock:redis").oversold()).isZero();
        assertThat(rows.get("lock:redis").orders()).isEqualTo(20);
        assertThat(rows.get("segmented:redis").oversold()).isZero();
        assertThat(rows.get("segmented:redis").orders()).isEqualTo(20);
        assertThat(r.stdout() + r.stderr()).doesNotContain(PASSWORD).contains("127.0.0.1:" + REDIS.port());
    }

    @Test
    void wrongPasswordIsNamedWithoutPrintingEitherPassword() {
        CliProcess.Result r = CliProcess.run("bench", "redis://:not-the-" + PASSWORD + "@127.0.0.1:" + REDIS.port(),
                "--timeout", "5s");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).contains("refused the credentials").doesNotContain(PASSWORD);
        assertThat(r.stderr().strip().lines()).hasSize(1);
    }

    @Test
    void inspectListsAHeldLockAndUnlockForceReleasesIt() throws Exception {
        String uri = "redis://:" + PASSWORD + "@127.0.0.1:" + REDIS.port();
        try (LockClient holder = LockClient.connect(uri)) {
            LockLease lease = holder.lock("order:42").acquire();
            holder.lock("invoice:7").acquire();

            CliProcess.Result listed = CliProcess.run("inspect", uri, "order:*");
            assertThat(listed.exitCode()).as(listed.toString()).isZero();
            assertThat(listed.stdout()).contains("order:42").contains(holder.clientId())
                    .contains(String.valueOf(lease.fencingToken())).doesNotContain("invoice:7")
                    .doesNotContain(PASSWORD);

            CliProcess.Result released = CliProcess.run("unlock", uri, "order:42", "--force", "--yes");
            assertThat(released.exitCode()).as(released.toString()).isZero();
            assertThat(released.stdout()).contains("released 'order:42'");

            CliProcess.Result after = CliProcess.run("inspect", uri, "order:*");
            assertThat(after.exitCode()).isZero();
            assertThat(after.stdout()).contains("no held locks match 'order:*'");
        }
    }

    @Test
    void inspectShowsTheKindOfEverySynchronizer() throws Exception {
        String uri = "redis://:" + PASSWORD + "@127.0.0.1:" + REDIS.port();
        try (LockClient holder = LockClient.connect(uri)) {
            holder.readWriteLock("sync:rw").readLock().lock();
            holder.fairLock("sync:fair").lock();
            holder.semaphore("sync:sem").trySetPermits(4);
            holder.countDownLatch("sync:latch").trySetCount(3);

            CliProcess.Result listed = CliProcess.run("inspect", uri, "sync:*");
            assertThat(listed.exitCode()).as(listed.toString()).isZero();
            List<String> rows = listed.stdout().lines().filter(l -> l.startsWith("sync:")).toList();
            assertThat(rows).hasSize(4);
            assertThat(rows.get(0)).startsWith("sync:fair").contains("fair-lock").contains(holder.clientId());
            assertThat(rows.get(1)).startsWith("sync:latch").contains("latch").contains("count 3");
            assertThat(rows.get(2)).startsWith("sync:rw").contains("read-lock").contains(holder.clientId());
            assertThat(rows.get(3)).startsWith("sync:sem").contains("semaphore").contains("4 permits available");
            assertThat(listed.stdout()).contains("kind").contains("detail").doesNotContain(PASSWORD);
        }
    }

    @Test
    void benchMeasuresTheRedisBackend() {
        CliProcess.Result r = CliProcess.run("bench", "redis://:" + PASSWORD + "@127.0.0.1:" + REDIS.port(),
                "--threads", "2", "--duration", "300ms", "--warmup", "100ms");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout().lines().filter(l -> l.matches("\\s*2\\s+(distinct|shared)\\s+.*"))).hasSize(2);
        assertThat(r.stdout()).doesNotContain(PASSWORD);
    }
}
