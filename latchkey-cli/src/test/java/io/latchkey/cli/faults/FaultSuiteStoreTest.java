package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fault suite with the fenced register kept in the lock's own fenced store ({@code verify --faults --register
 * store}): the lock's server itself refuses a paused, killed or cut-off holder's late write. Same rules as
 * {@link FaultSuiteTest}: no unsafe write, no lost update, every lost holder told, progress after server faults.
 */
class FaultSuiteStoreTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void redisClientFaults() throws InterruptedException {
        assertRulesHold(run("redis", EnumSet.of(FaultKind.SERVER_RESTART)), "redis");
    }

    @Test
    void etcdServerRestart() throws InterruptedException {
        assertRulesHold(run("etcd", Set.of()), "etcd");
    }

    @Test
    void zooKeeperEnsemble() throws InterruptedException {
        assertRulesHold(run("zookeeper-ensemble", Set.of()), "zookeeper-ensemble");
    }

    @Test
    void postgresql() throws InterruptedException {
        assertRulesHold(run("postgresql", EnumSet.of(FaultKind.CLOCK_JUMP)), "postgresql");
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
