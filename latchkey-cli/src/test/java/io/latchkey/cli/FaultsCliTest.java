package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@code latchkey verify --faults} through the command line's entry point: its usage errors and missing
 * prerequisites; its whole runs are {@link FaultsCliRunTest}.
 */
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

    record Output(int code, String out, String err) {
    }

    /** Runs the command with {@code System.out} and {@code System.err} captured (then printed). */
    static Output capture(Supplier<Integer> run) {
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
