package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.spi.LockInspector;
import io.latchkey.testing.RedisServerExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ctrl-C for real during {@code verify}: SIGINT to a {@code java -jar latchkey verify} process while its clients
 * contend on its {@code -mutex-*} locks. It says what it did, exits 130 and leaves no lock held.
 */
class VerifyInterruptIT {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @Test
    void sigintDuringTheContentionCheckReleasesEveryLockAndSaysSo() throws Exception {
        String uri = "redis://127.0.0.1:" + REDIS.port();
        Process p = CliProcess.javaJarTakingSigint("verify", uri, "--duration", "60s",
                "--names-prefix", "latchkey-verify-it").start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread outReader = pump(p.getInputStream(), out, "verify-it-stdout");
        Thread errReader = pump(p.getErrorStream(), err, "verify-it-stderr");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!text(out).contains("verifying ") && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(50);
            }
            assertThat(text(out)).as("started\n" + text(out) + text(err)).contains("verifying ");
            Thread.sleep(1500); // 12 threads taking turns on 3 locks: some are held at any moment
            try (LockClient observer = LockClient.connect(uri)) {
                assertThat(((LockInspector) observer).list("latchkey-verify-it-mutex-*")).as("contending").isNotEmpty();
            }
            Process kill = new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("ends after SIGINT\n" + text(out) + text(err)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        outReader.join(5000);
        errReader.join(5000);
        assertThat(p.exitValue()).as(text(out) + text(err)).isEqualTo(130);
        assertThat(text(err)).as(text(out) + text(err))
                .contains("interrupted after 0 of 6 checks; every lock this run used is released");
        try (LockClient observer = LockClient.connect(uri)) {
            List<?> held = ((LockInspector) observer).list("latchkey-verify-it*");
            assertThat(held).as("no lock left held until its lease runs out").isEmpty();
        }
    }

    private static String text(ByteArrayOutputStream s) {
        synchronized (s) {
            return s.toString(StandardCharsets.UTF_8);
        }
    }

    private static Thread pump(java.io.InputStream in, ByteArrayOutputStream to, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[4096];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (to) {
                        to.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
