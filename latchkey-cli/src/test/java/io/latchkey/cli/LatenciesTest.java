package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatenciesTest {

    @Test
    void nearestRankPercentilesOverMergedParts() {
        Latencies a = new Latencies();
        Latencies b = new Latencies();
        for (int i = 1; i <= 50; i++) {
            a.record(i);
            b.record(50 + i);
        }
        Latencies all = Latencies.merge(List.of(a, b));
        assertThat(all.count()).isEqualTo(100);
        assertThat(all.percentile(0.50)).isEqualTo(50);
        assertThat(all.percentile(0.99)).isEqualTo(99);
        assertThat(all.max()).isEqualTo(100);
        assertThat(new Latencies().percentile(0.5)).isEqualTo(-1);
    }

    @Test
    void latencyFormatFitsAColumn() {
        assertThat(Durations.latency(-1)).isEqualTo("-");
        assertThat(Durations.latency(85_400)).isEqualTo("85 us");
        assertThat(Durations.latency(2_345_000)).isEqualTo("2.35 ms");
        assertThat(Durations.latency(12_345_000)).isEqualTo("12.3 ms");
        assertThat(Durations.parse("500ms")).hasMillis(500);
        assertThat(Durations.parse("1.5s")).hasMillis(1500);
    }
}
