package io.latchkey.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Proves that the benchmark still runs end to end against a real redis-server: every row of both sides and the
 * limit completes and the report is a Markdown table. Each run lasts well under a second, so the figures mean
 * nothing and are not asserted; performance is read from {@code bench.sh}, not from tests.
 */
class RedisBenchSmokeTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.standalone();

    @Test
    void everyRowOfTheRedisComparisonCompletesAndIsTabulated() throws Exception {
        BenchOptions options = BenchOptions.parse("--redis", redis.uri(), "--warmup", "0.1", "--measure", "0.3",
                "--repeats", "1", "--suites", "redis");

        SideBySide.Report report = BenchMain.run(options);

        String md = report.markdown();
        assertThat(report.failed()).as(md).isFalse();
        assertThat(md)
                .contains("| scenario | Latchkey cycles/s | Redisson cycles/s | Latchkey ÷ Redisson | Latchkey ÷ limit |")
                .contains("| 1 thread, distinct names, watchdog |", "| 16 threads, distinct names, fixed lease |",
                        "| 16 threads, one name (contended), watchdog |", "| **limit** (2× EVALSHA, raw Lettuce), 16 threads |")
                .doesNotContain("failed", "| — | — |  |");
        assertThat(md).containsPattern("\\| 1 thread, distinct names, watchdog \\| [0-9,]+ \\| [0-9,]+ \\| [0-9.]+× \\|");
        assertThat(md).contains("**Latchkey** (", "**Redisson** (");
    }

    @Test
    void everyRowOfTheSynchronizerComparisonCompletesAndIsTabulated() throws Exception {
        BenchOptions options = BenchOptions.parse("--redis", redis.uri(), "--warmup", "0.1", "--measure", "0.3",
                "--repeats", "1", "--suites", "redis-sync");

        SideBySide.Report report = BenchMain.run(options);

        String md = report.markdown();
        assertThat(report.failed()).as(md).isFalse();
        assertThat(md)
                .contains("### Redis synchronizers: Latchkey vs Redisson")
                .contains("| read lock: 16 threads, distinct names, watchdog |",
                        "| read lock: 16 threads, one name (shared), watchdog |",
                        "| write lock: 16 threads, one name (contended), watchdog |",
                        "| fair lock: 16 threads, one name (contended), watchdog |",
                        "| semaphore: 16 threads, distinct names |", "| semaphore: 16 threads, one name (contended) |",
                        "| permit-expirable semaphore: 16 threads, distinct names, fixed lease |",
                        "| count-down latch: 16 threads, distinct names |")
                .doesNotContain("failed");
        assertThat(md).containsPattern("\\| fair lock: 16 threads, one name \\(contended\\), watchdog \\| [0-9,]+ \\| [0-9,]+ \\| [0-9.]+× \\|");
    }
}
