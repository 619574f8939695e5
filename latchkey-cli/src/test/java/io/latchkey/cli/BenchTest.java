package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.spi.LockInspector;
import io.latchkey.testing.RedisServerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code latchkey bench} on a real redis-server, in-process: progress, reports, and what Ctrl-C runs. */
class BenchTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    private static String uri() {
        return "redis://127.0.0.1:" + REDIS.port();
    }

    @Test
    void printsAProgressLinePerRowAndWritesCsvAndHtmlReports(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("bench.csv");
        InProcess.Result r = InProcess.run("bench", uri(), "--threads", "1,2", "--duration", "300ms", "--warmup",
                "100ms", "--report", csv.toString());
        assertThat(r.exitCode()).as(r.toString()).isZero();
        List<String> progress = r.stderr().lines().toList();
        assertThat(progress).as(r.toString()).hasSize(4);
        assertThat(progress.get(0)).startsWith("[1/4] 1 thread, distinct names … ").contains("cycles/s, p99 ");
        assertThat(progress.get(3)).startsWith("[4/4] 2 threads, one shared name … ");
        assertThat(r.stdout().lines().filter(l -> l.matches("\\s*[12]\\s+(distinct|shared)\\s+.*"))).hasSize(4);
        assertThat(r.stdout()).contains("report written to " + csv);
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).isEqualTo("threads,names,cycles_per_second,p50_us,p90_us,p99_us,max_us");
        assertThat(lines.get(1)).matches("1,distinct,\\d+\\.\\d,[\\d.]+,[\\d.]+,[\\d.]+,[\\d.]+");

        Path html = dir.resolve("bench.html");
        InProcess.Result h = InProcess.run("bench", uri(), "--threads", "2", "--names", "shared", "--duration",
                "200ms", "--warmup", "0ms", "--report", html.toString(), "--no-progress");
        assertThat(h.exitCode()).as(h.toString()).isZero();
        assertThat(h.stderr()).as("--no-progress").isEmpty();
        var doc = DemoIT.parseXml(Files.readString(html));
        assertThat(doc.getElementsByTagName("tr").getLength()).as("header + one row").isEqualTo(2);
        assertThat(doc.getElementsByTagName("rect").getLength()).isEqualTo(1);
        assertThat(Files.readString(html)).doesNotContain("<script").doesNotContain("src=");
        assertThat(heldBenchLocks()).isEmpty();
    }

    /** The shutdown hook's code path (what Ctrl-C runs), invoked while rows are being measured. */
    @Test
    void stoppingReleasesEveryLockPrintsThePartialTableAndSaysInterrupted(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        BenchCommand bench = cli.getSubcommands().get("bench").getCommand();
        Path csv = dir.resolve("partial.csv");
        CompletableFuture<InProcess.Result> run = new CompletableFuture<>();
        // its own thread, not the common pool (one thread on a 2-core machine, maybe busy with a driver's callbacks)
        Thread runner = new Thread(() -> run.complete(InProcess.run(cli, out, err, "bench", uri(), "--threads", "1,8",
                "--duration", "2s", "--warmup", "0ms", "--report", csv.toString())), "bench-test-run");
        runner.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> err.toString().contains("[2/4]") || run.isDone());
        assertThat(run.isDone()).as("still measuring\n" + out + err).isFalse();
        long stopStarted = System.nanoTime();
        bench.stop(); // returns once the run has released, printed and closed
        Duration stopTook = Duration.ofNanos(System.nanoTime() - stopStarted);
        InProcess.Result r = run.get(30, TimeUnit.SECONDS);
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(BenchCommand.INTERRUPTED);
        assertThat(stopTook).as(r.toString()).isLessThan(Duration.ofSeconds(6));
        assertThat(r.stderr()).as(r.toString()).contains("[2/4] 8 threads, distinct names … cut short, not shown")
                .contains("interrupted after 1 of 4 rows; every lock this run held is released");
        assertThat(r.stdout().lines().filter(l -> l.matches("\\s*1\\s+distinct\\s+.*"))).as(r.toString()).hasSize(1);
        assertThat(r.stdout().lines().filter(l -> l.matches("\\s*8\\s+.*"))).as(r.toString()).isEmpty();
        assertThat(Files.readAllLines(csv)).hasSize(2);
        assertThat(heldBenchLocks()).as("nothing left held").isEmpty();
    }

    private static List<?> heldBenchLocks() {
        try (LockClient observer = LockClient.connect(uri())) {
            return ((LockInspector) observer).list("latchkey-bench:*");
        }
    }
}
