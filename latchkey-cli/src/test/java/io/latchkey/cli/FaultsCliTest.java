package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@code latchkey verify --faults} through the command line's entry point. */
class FaultsCliTest {

    @Test
    void memIsRefusedBecauseWorkerProcessesCannotShareIt() {
        Output o = capture(() -> Main.run("verify", "--faults", "mem://x"));
        assertThat(o.code).isEqualTo(CliException.USAGE);
        assertThat(o.err).contains("mem:// lives in one process").contains("--embedded");
    }

    @Test
    void faultOptionsWithoutFaultsAreAUsageError() {
        Output o = capture(() -> Main.run("verify", "--embedded", "redis"));
        assertThat(o.code).isEqualTo(CliException.USAGE);
        assertThat(o.err).contains("go with --faults");
    }

    @Test
    void anUnknownEmbeddedServerNamesTheKnownOnes() {
        Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "oracle"));
        assertThat(o.code).isEqualTo(CliException.USAGE);
        assertThat(o.err).contains("redis, redis-sentinel, redis-cluster, zookeeper, zookeeper-ensemble, etcd, etcd-cluster, postgresql, mariadb");
    }

    @Test
    void anUnknownFaultNamesTheKnownOnes() {
        Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "redis", "--fault", "meteor"));
        assertThat(o.code).isEqualTo(CliException.USAGE);
        assertThat(o.err).contains("--fault must be one of pause-holder, kill-holder, partition-holder, server-restart, "
                + "failover, clock-jump, partition-server, partition-leader, split-brain but was 'meteor'");
    }

    @Test
    void aFaultTheBackendDoesNotHaveIsAUsageErrorSayingWhy() {
        Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "redis", "--fault", "failover"));
        assertThat(o.code).as(o.err).isEqualTo(CliException.USAGE);
        assertThat(o.err).contains("--fault failover does not run on redis");
    }

    @Test
    void helpListsTheFaultsPerKind() {
        Output o = capture(() -> Main.run("verify", "--help"));
        assertThat(o.out.replaceAll("\\s+", " ")).contains("--fault=NAME").contains("partition-server (redis, zookeeper, etcd, postgresql, mariadb")
                .contains("failover (redis-sentinel, redis-cluster, zookeeper-ensemble, etcd-cluster)")
                .contains("partition-leader (zookeeper-ensemble, etcd-cluster").contains("split-brain (redis-sentinel")
                .contains("--soak=DURATION");
    }

    /** Without root the partition fails naming what is missing; it is not skipped. */
    @Test
    void aServerPartitionWithoutRootFailsNamingIt() {
        String user = System.getProperty("user.name");
        System.setProperty("user.name", "nobody");
        try {
            Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "redis", "--fault",
                    "partition-server"));
            assertThat(o.code).as(o.err).isEqualTo(CliException.UNAVAILABLE);
            assertThat(o.err).contains("the partition-server fault needs root")
                    .contains("Linux network namespaces and veth links");
        } finally {
            System.setProperty("user.name", user);
        }
    }

    /** A split brain without root fails the same way, naming what is missing. */
    @Test
    void aSplitBrainWithoutRootFailsNamingIt() {
        String user = System.getProperty("user.name");
        System.setProperty("user.name", "nobody");
        try {
            Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "redis-sentinel?replicaAcks=1",
                    "--fault", "split-brain"));
            assertThat(o.code).as(o.err).isEqualTo(CliException.UNAVAILABLE);
            assertThat(o.err).contains("the partition faults of redis-sentinel needs root")
                    .contains("Linux network namespaces, veth links and a bridge");
        } finally {
            System.setProperty("user.name", user);
        }
    }

    /** Without {@code ip} on the PATH the partition fails naming the binary and its package; it is not skipped. */
    @Test
    void aServerPartitionWithoutIpFailsNamingIt() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path emptyPath = Files.createTempDirectory("latchkey-no-ip-");
        ProcessBuilder b = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "verify", "--faults", "--embedded", "redis", "--fault", "partition-server")
                .redirectErrorStream(true);
        b.environment().put("PATH", emptyPath.toString());
        Process p = b.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(output).isEqualTo(CliException.UNAVAILABLE);
        assertThat(output).contains("ip was not found on the PATH").contains("apt-get install");
        Files.delete(emptyPath);
    }

    /** {@code --fault} end to end: only the server partition, on the CLI's zero-setup ZooKeeper in a namespace. */
    @Test
    void onlyTheNamedFaultRuns() throws Exception {
        Path csv = Path.of("target", "faults", "zookeeper-partition-server-cli.csv");
        Output o = capture(() -> Main.run("verify", "--faults", "--embedded", "zookeeper", "--fault", "partition-server",
                "--report", csv.toString()));
        assertThat(o.code).as("%s%n%s", o.out, o.err).isZero();
        assertThat(o.out).contains("in network namespace").contains("partition server done")
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
        assertThat(o.code).as("%s%n%s", o.out, o.err).isZero();
        assertThat(o.out).contains("schedule:").contains("pause holder").contains("server restart")
                .contains("clock jump done").contains("partition server done").contains("all fault rules held");
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.get(0)).startsWith("backend,fault,target,");
        assertThat(rows.subList(1, rows.size())).hasSize(8).allSatisfy(r -> assertThat(r).contains(",PASS,"));
    }

    private record Output(int code, String out, String err) {
    }

    private static Output capture(Supplier<Integer> run) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = run.get();
            return new Output(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.out.print(out.toString(StandardCharsets.UTF_8));
        }
    }
}
