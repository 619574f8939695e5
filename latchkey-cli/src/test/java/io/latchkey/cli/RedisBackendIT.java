package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.RedisServerExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code --backend redis://…} against a real redis-server with a password that must never be printed. */
class RedisBackendIT {

    private static final String PASSWORD = "hunter22-secret";

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.builder().requirePass(PASSWORD).build();

    @Test
    void demoAddsALockAndASegmentedRowForTheRedisBackend() {
        String uri = "redis://:" + PASSWORD + "@127.0.0.1:" + REDIS.port();
        CliProcess.Result r = CliProcess.run("demo", "--no-embedded", "--backend", uri, "--stock", "20", "--buyers",
                "40", "--strategies", "none,lock,segmented");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        Map<String, DemoTableParser.Row> rows = DemoTableParser.parse(r.stdout());
        assertThat(rows).containsOnlyKeys("none", "lock:redis", "segmented:redis");
        assertThat(rows.get("none").oversold()).isPositive();
        assertThat(rows.get("lock:redis").oversold()).isZero();
        assertThat(rows.get("lock:redis").orders()).isEqualTo(20);
        assertThat(rows.get("segmented:redis").oversold()).isZero();
        assertThat(rows.get("segmented:redis").orders()).isEqualTo(20);
        assertThat(r.stdout() + r.stderr()).doesNotContain(PASSWORD).contains("127.0.0.1:" + REDIS.port());
    }

    @Test
    void wrongPasswordIsNamedWithoutPrintingEitherPassword() {
        CliProcess.Result r = CliProcess.run("bench", "redis://:not-the-" + PASSWORD + "@127.0.0.1:" + REDIS.port(),
                "--timeout", "5s");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).contains("refused the credentials").doesNotContain(PASSWORD);
        assertThat(r.stderr().strip().lines()).hasSize(1);
    }

    @Test
    void benchMeasuresTheRedisBackend() {
        CliProcess.Result r = CliProcess.run("bench", "redis://:" + PASSWORD + "@127.0.0.1:" + REDIS.port(),
                "--threads", "2", "--duration", "300ms", "--warmup", "100ms");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout().lines().filter(l -> l.matches("\\s*2\\s+(distinct|shared)\\s+.*"))).hasSize(2);
        assertThat(r.stdout()).doesNotContain(PASSWORD);
    }
}
