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
 * a partition cuts both alike), which keeps this suite within the CI's time. In CI ({@code CI=true}) the bounded
 * profile runs the store on Redis and the ZooKeeper ensemble; etcd and PostgreSQL run everywhere else and in CI with
 * {@code LATCHKEY_FULL=1}.
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
        assumeFullProfile();
        assertRulesHold(run("etcd", EnumSet.of(FaultKind.PARTITION_SERVER)), "etcd");
    }

    @Test
    void zooKeeperEnsemble() throws InterruptedException {
        assertRulesHold(run("zookeeper-ensemble", Set.of()), "zookeeper-ensemble");
    }

    @Test
    void postgresql() throws InterruptedException {
        assumeFullProfile();
        assertRulesHold(run("postgresql", EnumSet.of(FaultKind.CLOCK_JUMP, FaultKind.PARTITION_SERVER)), "postgresql");
    }

    /** CI's bounded profile leaves this run out unless {@code LATCHKEY_FULL=1}; everywhere else it runs. */
    private static void assumeFullProfile() {
        org.junit.jupiter.api.Assumptions.assumeTrue(!"true".equals(System.getenv("CI"))
                || "1".equals(System.getenv("LATCHKEY_FULL")), "CI's bounded profile (LATCHKEY_FULL=1 runs it)");
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
