package io.latchkey.bench;

/**
 * A log-linear latency histogram in nanoseconds (32 sub-buckets per power of two, so a percentile is within about
 * 3 % of the true value). One instance per thread, merged after the run: recording is a plain array increment, so
 * measuring costs far less than the round trip being measured.
 */
final class LatencyHistogram {

    private static final int SUB_BUCKET_BITS = 5;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    private static final int BUCKETS = (64 - SUB_BUCKET_BITS + 1) * SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];
    private long total;

    void record(long nanos) {
        counts[index(Math.max(0, nanos))]++;
        total++;
    }

    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
    }

    long count() {
        return total;
    }

    /** The value at {@code quantile} (0..1) in nanoseconds, or -1 when nothing was recorded. */
    long percentile(double quantile) {
        if (total == 0) {
            return -1;
        }
        long rank = (long) Math.ceil(quantile * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= Math.max(1, rank)) {
                return upperBound(i);
            }
        }
        return upperBound(BUCKETS - 1);
    }

    private static int index(long value) {
        if (value < SUB_BUCKETS) {
            return (int) value;
        }
        int magnitude = 63 - Long.numberOfLeadingZeros(value);
        int shift = magnitude - SUB_BUCKET_BITS;
        int sub = (int) (value >>> shift) & (SUB_BUCKETS - 1);
        return (shift + 1) * SUB_BUCKETS + sub;
    }

    private static long upperBound(int index) {
        if (index < SUB_BUCKETS) {
            return index;
        }
        int shift = index / SUB_BUCKETS - 1;
        long sub = index % SUB_BUCKETS;
        return ((SUB_BUCKETS + sub + 1) << shift) - 1;
    }
}
