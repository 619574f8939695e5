package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fault suite with the fenced register kept in the lock's own fenced store ({@code verify --faults --register
 * store}): the lock's server itself refuses a paused, killed or cut-off holder's late write. Same rules as
 * {@link FaultSuiteTest}: no unsafe write, no lost update, every lost holder told, progress after server faults.
 * etcd's and PostgreSQL's server partitions are left to {@link FaultSuiteTest} (the store lives in the same server, so
 * a partition cuts both alike), which keeps this suite within the CI's time. The bounded {@link FaultProfile} runs the
 * store on Redis; the ZooKeeper ensemble, etcd and PostgreSQL with {@code -Dlatchkey.faults=full}.
 */
@Tag("fault-runs")
class FaultSuiteStoreTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void redisClientFaults() throws InterruptedException {
        assertRulesHold(run("redis", EnumSet.of(FaultKind.SERVER_RESTART)), "redis");
    }

    @Test
    void etcdServerRestart() throws InterruptedException {
        FaultProfile.leftOut("FaultSuiteStoreTest.etcdServerRestart (the register in etcd's fenced store)",
                "redisClientFaults for the store under faults, FaultSuiteTest.etcdCluster for etcd");
        assertRulesHold(run("etcd", EnumSet.of(FaultKind.PARTITION_SERVER)), "etcd");
    }

    @Test
    void zooKeeperEnsemble() throws InterruptedException {
        FaultProfile.leftOut("FaultSuiteStoreTest.zooKeeperEnsemble (the register in ZooKeeper's fenced store)",
                "redisClientFaults for the store under faults, FaultSuiteTest.zooKeeperEnsemble for ZooKeeper");
        assertRulesHold(run("zookeeper-ensemble", Set.of()), "zookeeper-ensemble");
    }

    @Test
    void postgresql() throws InterruptedException {
        FaultProfile.leftOut("FaultSuiteStoreTest.postgresql (the register in PostgreSQL's fenced store)",
                "redisClientFaults for the store under faults, FaultSuiteTest.postgresql for PostgreSQL");
        assertRulesHold(run("postgresql", EnumSet.of(FaultKind.CLOCK_JUMP, FaultKind.PARTITION_SERVER)), "postgresql");
    }

    private static FaultRun.Result run(String embedded, Set<FaultKind> skip) throws InterruptedException {
        StringWriter out = new StringWriter();
        Path report = Path.of("target", "faults", "store-" + embedded + ".html");
        FaultRun.Result result = FaultRun.run(new FaultRun.Options(null, embedded, FaultRun.STORE_REGISTER, 3, LEASE,
                Duration.ZERO, report, skip), new PrintWriter(out, true));
        System.out.println(out);
        assertThat(out.toString()).contains("fenced register in the lock's own fenced store");
        return result;
    }

    private static void assertRulesHold(FaultRun.Result result, String backend) {
        List<FaultRow> rows = result.rows();
        FaultRow whole = rows.get(rows.size() - 1);
        assertThat(result.passed()).as("%s: %s", backend, String.join("; ", whole.violations())).isTrue();
        assertThat(whole.unsafe()).isZero();
        assertThat(whole.lostUpdates()).isZero();
        assertThat(whole.told()).isEqualTo(whole.lostHolds());
        assertThat(whole.accepted()).as("the workers made progress").isGreaterThan(10);
    }
}
