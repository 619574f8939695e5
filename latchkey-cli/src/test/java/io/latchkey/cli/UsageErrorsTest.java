package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.RedisServerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistakes are caught before anything connects or runs, each as one line with exit code 2; a server that was
 * reached but refused says so with its reason (exit code 1). In-process, through the picocli entry point.
 */
class UsageErrorsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @Test
    void aDurationWithoutAUnitIsAUsageErrorInEveryCommand() {
        List<List<String>> runs = List.of(
                List.of("demo", "--pause", "5"),
                List.of("demo", "--wait", "30"),
                List.of("bench", "mem://usage", "--duration", "5"),
                List.of("bench", "mem://usage", "--warmup", "500"),
                List.of("inspect", "mem://usage", "--timeout", "1"),
                List.of("unlock", "mem://usage", "x", "--force", "--yes", "--timeout", "1"),
                List.of("verify", "mem://usage", "--lease", "1"),
                List.of("verify", "mem://usage", "--watchdog", "1500"));
        for (List<String> args : runs) {
            InProcess.Result r = InProcess.run(args.toArray(String[]::new));
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
            assertThat(r.stderr()).as(r.toString()).contains("has no unit").contains("5s").contains("250ms")
                    .contains("--help");
            assertThat(r.stderr().strip().lines()).as(r.toString()).hasSize(1);
            assertThat(r.stdout()).as(r.toString()).isEmpty();
        }
        InProcess.Result garbage = InProcess.run("bench", "mem://usage", "--duration", "fast");
        assertThat(garbage.exitCode()).isEqualTo(2);
        assertThat(garbage.stderr()).contains("'fast' is not a duration");
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void urisAndNamesAreCheckedBeforeConnecting() throws IOException {
        int closed = ImpostorServer.closedPort();
        InProcess.Result port = InProcess.run("inspect", "redis://127.0.0.1:63x9");
        assertThat(port.exitCode()).as(port.toString()).isEqualTo(2);
        assertThat(port.stderr()).contains("port '63x9' of host 127.0.0.1").contains("not a number");

        InProcess.Result zkPort = InProcess.run("unlock", "zookeeper://a:2181,b:two", "x", "--force", "--yes");
        assertThat(zkPort.exitCode()).as(zkPort.toString()).isEqualTo(2);
        assertThat(zkPort.stderr()).contains("port 'two' of host b");

        InProcess.Result bare = InProcess.run("inspect", "localhost:6379");
        assertThat(bare.exitCode()).isEqualTo(2);
        assertThat(bare.stderr()).contains("did you mean redis://localhost:6379?");
        assertThat(InProcess.run("bench", "127.0.0.1:2379").stderr()).contains("did you mean etcd://127.0.0.1:2379?");
        assertThat(InProcess.run("demo", "--backend", "db:2181").stderr())
                .contains("did you mean zookeeper://db:2181?");

        // a name no backend accepts: refused without a connection (the port is closed, which would be exit 1)
        InProcess.Result control = InProcess.run("unlock", "redis://127.0.0.1:" + closed, "bad\u0007name", "--force",
                "--yes");
        assertThat(control.exitCode()).as(control.toString()).isEqualTo(2);
        assertThat(control.stderr()).contains("control characters");
        InProcess.Result longName = InProcess.run("unlock", "redis://127.0.0.1:" + closed, "n".repeat(513), "--force",
                "--yes");
        assertThat(longName.exitCode()).as(longName.toString()).isEqualTo(2);
        assertThat(longName.stderr()).contains("1 to 512 characters");
    }

    @Test
    void aServerThatRefusesSaysItWasReachedAndWhy() {
        InProcess.Result r = InProcess.run("inspect", "redis://127.0.0.1:" + REDIS.port() + "/99", "--timeout", "5s");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("reached redis at 127.0.0.1:" + REDIS.port() + ", but it refused: the server refused the "
                        + "connection's setup (ERR DB index is out of range): the URI's database number is not below")
                .doesNotContain("cannot reach");
        assertThat(r.stderr().strip().lines()).hasSize(1);
    }

    @Test
    void reportPathsAreCheckedBeforeTheWork(@TempDir Path dir) throws IOException {
        InProcess.Result proc = InProcess.run("demo", "--report", "/proc/x.html");
        assertThat(proc.exitCode()).as(proc.toString()).isEqualTo(2);
        assertThat(proc.stderr()).as(proc.toString()).contains("--report /proc/x.html: cannot write in directory /proc");
        assertThat(proc.stderr().strip().lines()).hasSize(1);
        assertThat(proc.stdout()).as("nothing ran").isEmpty();
        assertThat(proc.took()).as("before the embedded servers start").isLessThan(Duration.ofSeconds(5));

        InProcess.Result isDir = InProcess.run("demo", "--report", dir.toString() + "/");
        assertThat(isDir.exitCode()).isEqualTo(2);
        assertThat(isDir.stderr()).contains("is a directory");

        Path file = dir.resolve("plain-file");
        Files.writeString(file, "x");
        InProcess.Result underFile = InProcess.run("demo", "--report", file.resolve("r.html").toString());
        assertThat(underFile.exitCode()).isEqualTo(2);
        assertThat(underFile.stderr()).contains("is not a directory");

        InProcess.Result ext = InProcess.run("bench", "mem://usage", "--report", dir.resolve("b.txt").toString());
        assertThat(ext.exitCode()).isEqualTo(2);
        assertThat(ext.stderr()).contains("must end in .html or .htm or .csv");
    }

    @Test
    void helpListsEverySchemeWithoutBreakingOneAcrossLines() {
        InProcess.Result r = InProcess.run("--help");
        assertThat(r.exitCode()).isZero();
        List<String> lines = r.stdout().lines().toList();
        for (String prefix : Connector.supportedPrefixes()) {
            assertThat(lines).as(prefix + " on one line\n" + r.stdout()).anyMatch(l -> l.contains(prefix));
        }
        assertThat(Connector.supportedPrefixes()).contains("etcd://", "redis-sentinel://", "redis-cluster://",
                "mem://", "zookeeper://", "jdbc:postgresql:");
        assertThat(lines).as("picocli wraps at 80 columns and may break after ':' or '/'")
                .allMatch(l -> l.length() <= 80);
    }
}
