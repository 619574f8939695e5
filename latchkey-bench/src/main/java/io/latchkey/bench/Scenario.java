package io.latchkey.bench;

/**
 * One row of a side-by-side table: how many threads run lock+unlock cycles, whether they share one lock name
 * (contended) or each use their own (uncontended), and how the lock is leased.
 */
public record Scenario(int threads, boolean contended, LeaseMode mode) {

    public Scenario {
        if (threads < 1) {
            throw new IllegalArgumentException(String.format("threads must be positive but was %d", threads));
        }
    }

    public String label() {
        return String.format("%d thread%s, %s, %s", threads, threads == 1 ? "" : "s",
                contended ? "one name (contended)" : "distinct names", mode.label());
    }
}
