package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.Leadership;
import io.latchkey.LockClient;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code latchkey inspect} shows a leader election as an election (name, leader, term), not as the two internal
 * locks it is made of ({@code latchkey.election:…} and {@code latchkey.leader:…}).
 */
class InspectElectionsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @Test
    void anElectionIsListedWithItsLeaderAndTermAndNotAsHeldLocks() throws Exception {
        String uri = "redis://127.0.0.1:" + REDIS.port();
        try (LockClient client = LockClient.connect(uri, ClientOptions.builder()
                .watchdogTimeout(Duration.ofSeconds(10)).build())) {
            DistributedLock orders = client.lock("orders:1");
            orders.lock();
            try (Leadership leadership = client.leaderElection("billing", "node-7").awaitLeadership()) {
                awaitLeaderRecord(uri);
                InProcess.Result all = InProcess.run("inspect", uri);
                assertThat(all.exitCode()).as(all.toString()).isZero();
                assertThat(all.stdout()).as(all.toString())
                        .contains("orders:1", "1 held lock on ", "1 leader election on ")
                        .doesNotContain("latchkey.election:", "latchkey.leader:", "held locks");
                String row = all.stdout().lines().filter(l -> l.startsWith("billing")).findFirst().orElseThrow();
                assertThat(row.split("\\s+")).as(all.toString()).startsWith("billing", "node-7",
                        String.valueOf(leadership.term()));

                InProcess.Result byName = InProcess.run("inspect", uri, "bill*");
                assertThat(byName.stdout()).as(byName.toString()).contains("no held locks match 'bill*'")
                        .contains("1 leader election on ").containsPattern("billing\\s+node-7\\s+" + leadership.term());
            }
            InProcess.Result after = InProcess.run("inspect", uri, "bill*");
            assertThat(after.stdout()).as(after.toString()).doesNotContain("node-7");
        } finally {
            try (LockClient cleanup = LockClient.connect(uri)) {
                cleanup.lock("orders:1").forceUnlock();
            }
        }
    }

    /** The leader takes its record right after it was elected; wait until the inspector sees it. */
    private static void awaitLeaderRecord(String uri) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (InProcess.run("leader", uri, "billing").stdout().contains("candidate node-7")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader record for 'billing'");
    }
}
