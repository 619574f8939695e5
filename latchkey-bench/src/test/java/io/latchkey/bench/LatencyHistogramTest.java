package io.latchkey.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void percentilesAreWithinTheBucketResolution() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1_000);
        }
        assertThat(h.count()).isEqualTo(100_000);
        assertThat((double) h.percentile(0.50)).isCloseTo(50_000_000, within(50_000_000 * 0.04));
        assertThat((double) h.percentile(0.99)).isCloseTo(99_000_000, within(99_000_000 * 0.04));
    }

    @Test
    void mergedHistogramsCountBoth() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        b.record(1_000_000);
        a.add(b);
        assertThat(a.count()).isEqualTo(2);
        assertThat(a.percentile(0.5)).isEqualTo(10);
        assertThat((double) a.percentile(1.0)).isCloseTo(1_000_000, within(40_000.0));
        assertThat(new LatencyHistogram().percentile(0.5)).isEqualTo(-1);
    }
}
