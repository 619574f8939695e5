package io.latchkey.bench;

import java.util.Objects;

/**
 * One row of a side-by-side table: which primitive the cycle exercises, how many threads run cycles, whether they
 * share one name (contended) or each use their own (uncontended), and how the lock or permit is leased.
 */
public record Scenario(Primitive primitive, int threads, boolean contended, LeaseMode mode) {

    public Scenario {
        Objects.requireNonNull(primitive, "primitive");
        Objects.requireNonNull(mode, "mode");
        if (threads < 1) {
            throw new IllegalArgumentException(String.format("threads must be positive but was %d", threads));
        }
    }

    /** A row of the plain lock's table. */
    public Scenario(int threads, boolean contended, LeaseMode mode) {
        this(Primitive.LOCK, threads, contended, mode);
    }

    public String label() {
        String row = String.format("%d thread%s, %s", threads, threads == 1 ? "" : "s",
                !contended ? "distinct names"
                        : primitive == Primitive.READ_LOCK ? "one name (shared)" : "one name (contended)");
        if (mode != LeaseMode.NONE) {
            row += ", " + mode.label();
        }
        return primitive == Primitive.LOCK ? row : primitive.label() + ": " + row;
    }
}
