package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code verify --faults --soak}: a short soak in CI (40 s on Redis, a fault every 20 s); the 30-minute soak of every
 * kind runs outside CI ({@code scripts/soak.sh}).
 */
@Tag("fault-runs")
class FaultSoakTest {

    @Test
    void aShortSoakOnRedisCyclesFaultsAndSamplesFlat() throws InterruptedException {
        StringWriter out = new StringWriter();
        FaultRun.Result result = FaultRun.run(new FaultRun.Options(null, "redis", null, 3, Duration.ofSeconds(2),
                Duration.ZERO, Path.of("target", "faults", "redis-soak.html"), Set.of(),
                Set.of(FaultKind.KILL, FaultKind.PAUSE), Duration.ofSeconds(40)), new PrintWriter(out, true));
        System.out.println(out);
        assertThat(result.passed()).as(out.toString()).isTrue();
        assertThat(result.soak()).extracting(FaultRun.SoakSample::label).containsExactly("start", "middle", "end");
        FaultRun.SoakSample start = result.soak().get(0);
        FaultRun.SoakSample end = result.soak().get(2);
        assertThat(end.faults()).as("a fault every 20 s, cycling").isGreaterThanOrEqualTo(2);
        assertThat(start.threadsMax()).as("the workers sampled themselves").isPositive();
        assertThat(start.heapMax()).isPositive();
        assertThat(end.serverObjects()).as("Redis keys counted").isGreaterThanOrEqualTo(0);
        assertThat(out.toString()).contains("soak of redis").contains("worker threads").contains("server objects");
        FaultRow whole = result.rows().get(result.rows().size() - 1);
        assertThat(whole.unsafe()).isZero();
        assertThat(whole.stuck()).isZero();
    }

    /** Judged from the middle to the end: the first half warms up (pools fill to their bounds). */
    @Test
    void growthFromTheMiddleToTheEndIsAViolation() {
        FaultRun.SoakSample start = new FaultRun.SoakSample("start", 20, 0, 6 << 20, 6 << 20, 16, 19, 1);
        FaultRun.SoakSample middle = new FaultRun.SoakSample("middle", 900, 45, 10 << 20, 12 << 20, 30, 31, 2);
        FaultRun.SoakSample flat = new FaultRun.SoakSample("end", 1800, 90, 11 << 20, 14 << 20, 30, 33, 3);
        FaultRun.SoakSample grown = new FaultRun.SoakSample("end", 1800, 90, 40 << 20, 60 << 20, 30, 50, 400);
        assertThat(SoakSampler.violations(List.of(start, middle, flat))).isEmpty();
        assertThat(SoakSampler.violations(List.of(start, middle, grown))).containsExactly(
                "soak: worker threads grew from 31 (middle) to 50 (end)",
                "soak: worker heap after GC grew from 12.0 MB (middle) to 60.0 MB (end)",
                "soak: the server's objects grew from 2 (middle) to 400 (end)");
    }

    @Test
    void aSoakShorterThanOnePeriodIsRefused() {
        assertThatThrownBy(() -> new FaultRun.Options(null, "redis", null, 3, Duration.ofSeconds(2), Duration.ZERO,
                null, Set.of(), Set.of(), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--soak must be at least 20s (a fault every 20s) but was 5000ms");
    }
}
