package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code latchkey verify}, run as a separate process against the in-memory backend, H2 and a real ZooKeeper server. */
class VerifyIT {

    private static final List<String> CHECKS = List.of("mutual exclusion", "fencing tokens", "lease expiry",
            "lost signal", "interruption", "wake-up latency");

    /** Short everything: the checks still contend for real, just for less time. */
    private static final String[] FAST = {"--duration", "1s", "--lease", "400ms", "--watchdog", "600ms",
            "--rounds", "4"};

    private static CliProcess.Result verify(String uri, String... more) {
        String[] args = new String[2 + FAST.length + more.length];
        args[0] = "verify";
        args[1] = uri;
        System.arraycopy(FAST, 0, args, 2, FAST.length);
        System.arraycopy(more, 0, args, 2 + FAST.length, more.length);
        return CliProcess.runWithInput(null, Duration.ofSeconds(120), args);
    }

    private static void assertAllPass(CliProcess.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
        for (String check : CHECKS) {
            assertThat(r.stdout().lines().filter(l -> l.startsWith(check + " ")))
                    .as(r.toString()).singleElement().asString().matches(check + "\\s+PASS\\s+\\S.*");
        }
        assertThat(r.stdout()).contains("max inside 1, lost updates 0").contains("all checks passed");
    }

    @Test
    void inMemoryBackendPassesEveryCheck() {
        CliProcess.Result r = verify("mem://it-verify", "--names-prefix", "it-verify");
        assertAllPass(r);
        assertThat(r.stdout()).contains("lock names it-verify-*");
    }

    @Test
    void embeddedH2PassesEveryCheck() throws IOException {
        Path dir = CliProcess.tempDir();
        assertAllPass(verify("jdbc:h2:file:" + dir.resolve("verify").toAbsolutePath(), "--clients", "2",
                "--threads", "2"));
    }

    @Test
    void zooKeeperServerPassesEveryCheck() throws IOException {
        Path dir = CliProcess.tempDir();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().dataDir(dir.resolve("zookeeper")).start()) {
            assertAllPass(verify(zk.uri(), "--clients", "2", "--threads", "2"));
        }
    }

    @Test
    void unreachableServerIsTheUsualOneLineError() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        CliProcess.Result r = CliProcess.run("verify", "redis://admin:hunter22@127.0.0.1:" + port, "--timeout", "1s");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr().strip().lines()).as(r.toString()).hasSize(1);
        assertThat(r.stderr()).contains("cannot reach").doesNotContain("hunter22");
        assertThat(r.stdout()).doesNotContain("hunter22");
    }

    @Test
    void oneClientIsABadArgument() {
        CliProcess.Result r = CliProcess.run("verify", "mem://it-verify", "--clients", "1");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("--clients must be 2..64 but was 1");
    }
}
