package io.latchkey.cli;

import java.util.Arrays;

/**
 * Latency samples in nanoseconds. Each recording thread owns one instance (no sharing, no locking while measuring);
 * {@link #merge} combines them after the recording threads were joined, which publishes their samples.
 */
final class Latencies {

    private long[] samples = new long[1024];
    private int size;
    private boolean sorted;

    void record(long nanos) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
        sorted = false;
    }

    int count() {
        return size;
    }

    static Latencies merge(Iterable<Latencies> parts) {
        Latencies all = new Latencies();
        for (Latencies part : parts) {
            for (int i = 0; i < part.size; i++) {
                all.record(part.samples[i]);
            }
        }
        return all;
    }

    /** The {@code q} quantile (0..1) by the nearest-rank method, or -1 when there are no samples. */
    long percentile(double q) {
        if (size == 0) {
            return -1;
        }
        if (!sorted) {
            Arrays.sort(samples, 0, size);
            sorted = true;
        }
        int rank = (int) Math.ceil(q * size);
        return samples[Math.max(0, Math.min(size - 1, rank - 1))];
    }

    long max() {
        return percentile(1.0);
    }
}
