package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.spi.LockInspector;
import io.latchkey.testing.RedisServerExtension;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Ctrl-C for real: SIGINT to a {@code java -jar latchkey bench} process while 16 threads hold and release locks. */
class BenchInterruptIT {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @Test
    void sigintReleasesEveryLockAndPrintsThePartialTable() throws Exception {
        String uri = "redis://127.0.0.1:" + REDIS.port();
        Process p = CliProcess.javaJarTakingSigint("bench", uri, "--threads", "1,16", "--names", "shared",
                "--duration", "4s", "--warmup", "0ms").start();
        StringBuilder err = new StringBuilder();
        CountDownLatch secondRow = new CountDownLatch(1);
        Thread errReader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                int c;
                while ((c = r.read()) >= 0) {
                    synchronized (err) {
                        err.append((char) c);
                        if (err.indexOf("[2/2]") >= 0) {
                            secondRow.countDown();
                        }
                    }
                }
            } catch (IOException e) {
                // process ended
            }
        }, "bench-it-stderr");
        errReader.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread outReader = new Thread(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException e) {
                // process ended
            }
        }, "bench-it-stdout");
        outReader.start();
        try {
            assertThat(secondRow.await(90, TimeUnit.SECONDS)).as("the second row started\n" + err).isTrue();
            Thread.sleep(500); // 16 threads taking turns on one lock: someone holds it at any moment
            Process kill = new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("ends after SIGINT\n" + err).isTrue();
        } finally {
            p.destroyForcibly();
        }
        errReader.join(5000);
        outReader.join(5000);
        String stdout = out.toString(StandardCharsets.UTF_8);
        String stderr;
        synchronized (err) {
            stderr = err.toString();
        }
        assertThat(p.exitValue()).as(stdout + stderr).isEqualTo(130);
        assertThat(stderr).contains("interrupted after 1 of 2 rows; every lock this run held is released");
        assertThat(stdout.lines().filter(l -> l.matches("\\s*1\\s+shared\\s+.*"))).as(stdout).hasSize(1);
        try (LockClient observer = LockClient.connect(uri)) {
            List<?> held = ((LockInspector) observer).list("latchkey-bench:*");
            assertThat(held).as("no lock left held until its lease runs out").isEmpty();
        }
    }
}
