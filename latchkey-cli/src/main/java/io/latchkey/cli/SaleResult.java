package io.latchkey.cli;

/**
 * The outcome of one strategy's run.
 *
 * @param strategy the strategy's name
 * @param description what protected the stock
 * @param stock the stock at the start
 * @param buyers how many buyers tried
 * @param orders orders placed (counted in the database)
 * @param finalStock the stock left (read from the database)
 * @param failedAttempts attempts that lost a race (CAS conflicts, lock or row-lock timeouts)
 * @param gaveUp buyers who got no order although they were not told "sold out"
 * @param elapsedNanos wall time from the first buyer's start to the last buyer's end
 * @param p50Nanos median acquire latency, -1 when nothing is acquired
 * @param p99Nanos 99th percentile acquire latency, -1 when nothing is acquired
 * @param error the first unexpected error (masked), or {@code null}
 */
record SaleResult(String strategy, String description, int stock, int buyers, int orders, int finalStock,
        long failedAttempts, int gaveUp, long elapsedNanos, long p50Nanos, long p99Nanos, String error) {

    /** Orders placed beyond the stock: items sold that did not exist. */
    int oversold() {
        return Math.max(0, orders - stock);
    }

    /** Decrements that went missing: the stock left does not match what was sold. */
    int lostUpdates() {
        return Math.max(0, finalStock - (stock - orders));
    }

    /** Buyers served per second. */
    double throughput() {
        return elapsedNanos <= 0 ? 0 : buyers / (elapsedNanos / 1e9);
    }
}
