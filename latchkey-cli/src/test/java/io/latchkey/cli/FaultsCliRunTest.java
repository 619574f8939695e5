package io.latchkey.cli;

import static io.latchkey.cli.FaultsCliTest.capture;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.cli.FaultsCliTest.Output;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@code latchkey verify --faults} end to end through the command line's entry point, on servers it starts: fault
 * runs (tag {@code fault-runs}), so they share the fault suite's execution, two runs at a time. Its two methods run one
 * after the other: each captures {@code System.out}.
 */
@Tag("fault-runs")
@Execution(ExecutionMode.SAME_THREAD)
class FaultsCliRunTest {

    /** {@code --fault} end to end: only the server partition, on the CLI's zero-setup ZooKeeper in a namespace. */
    @Test
    void onlyTheNamedFaultRuns() throws Exception {
        Path csv = Path.of("target", "faults", "zookeeper-partition-server-cli.csv");
        Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "zookeeper", "--fault", "partition-server",
                "--report", csv.toString()));
        assertThat(o.code()).as("%s%n%s", o.out(), o.err()).isZero();
        assertThat(o.out()).contains("in network namespace").contains("partition server done")
                .doesNotContain("pause holder").contains("all fault rules held");
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.subList(1, rows.size())).hasSize(3).allSatisfy(r -> assertThat(r).contains(",PASS,"));
        assertThat(rows.get(2)).startsWith("zookeeper,partition server,");
    }

    /**
     * The MariaDB run of the fault suite, end to end: schedule, table, CSV report, exit code 0; with a jump of the
     * server's clock (libfaketime), which the run must not leave out, and a partition of the server.
     */
    @Test
    void embeddedMariaDbRunPassesEveryRule() throws Exception {
        Path csv = Path.of("target", "faults", "mariadb-cli.csv");
        Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "mariadb", "--report", csv.toString()));
        assertThat(o.code()).as("%s%n%s", o.out(), o.err()).isZero();
        assertThat(o.out()).contains("schedule:").contains("pause holder").contains("server restart")
                .contains("clock jump done").contains("partition server done").contains("all fault rules held");
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.get(0)).startsWith("backend,fault,target,");
        assertThat(rows.subList(1, rows.size())).hasSize(8).allSatisfy(r -> assertThat(r).contains(",PASS,"));
    }

}
