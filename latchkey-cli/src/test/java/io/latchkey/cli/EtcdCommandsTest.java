package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.EtcdServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code etcd://} in every command, against a real etcd server, in-process. */
class EtcdCommandsTest {

    @RegisterExtension
    static final EtcdServerExtension ETCD = new EtcdServerExtension();

    @Test
    void inspectShowsOwnerTokenAndLeaseAndUnlockForceReleases() throws Exception {
        try (LockClient holder = LockClient.connect(ETCD.uri(),
                ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(9)).build())) {
            LockLease order = holder.lock("order:42").acquire();
            holder.lock("invoice:7").acquire();

            InProcess.Result listed = InProcess.run("inspect", ETCD.uri(), "order:*");
            assertThat(listed.exitCode()).as(listed.toString()).isZero();
            List<String> rows = listed.stdout().lines().filter(l -> l.startsWith("order:42")).toList();
            assertThat(rows).as(listed.toString()).hasSize(1);
            assertThat(rows.get(0)).contains(holder.clientId()).contains(" " + order.fencingToken() + " ")
                    .containsPattern(" [1-9]\\.\\d\\d s ");
            assertThat(listed.stdout()).doesNotContain("invoice:7").contains("1 held lock on etcd at ");

            InProcess.Result released = InProcess.run("unlock", ETCD.uri(), "order:42", "--force", "--yes");
            assertThat(released.exitCode()).as(released.toString()).isZero();
            assertThat(released.stdout()).contains("released 'order:42' on etcd at " + ETCD.endpoint().replace("http://", ""));
            assertThat(InProcess.run("inspect", ETCD.uri(), "order:*").stdout()).contains("no held locks match");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> !order.isValid());
        }
    }

    @Test
    void benchDemoAndVerifyRunOnEtcd() {
        InProcess.Result bench = InProcess.run("bench", ETCD.uri(), "--threads", "2", "--duration", "300ms",
                "--warmup", "100ms");
        assertThat(bench.exitCode()).as(bench.toString()).isZero();
        assertThat(bench.stdout().lines().filter(l -> l.matches("\\s*2\\s+(distinct|shared)\\s+.*"))).hasSize(2);

        InProcess.Result demo = InProcess.run("demo", "--no-embedded", "--backend", ETCD.uri(), "--stock", "5",
                "--buyers", "10", "--clients", "2", "--threads", "2", "--strategies", "none,lock", "--no-progress");
        assertThat(demo.exitCode()).as(demo.toString()).isZero();
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(demo.stdout());
        assertThat(rows).as(demo.toString()).containsOnlyKeys("none", "lock:etcd");
        assertThat(rows.get("lock:etcd").oversold()).isZero();
        assertThat(rows.get("lock:etcd").orders()).isEqualTo(5);

        InProcess.Result verify = InProcess.run("verify", ETCD.uri(), "--clients", "2", "--threads", "2",
                "--duration", "1s", "--rounds", "2", "--lease", "2s", "--watchdog", "3s");
        assertThat(verify.exitCode()).as(verify.toString()).isZero();
        assertThat(verify.stdout()).contains("all checks passed");
    }
}
