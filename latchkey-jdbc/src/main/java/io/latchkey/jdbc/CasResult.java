package io.latchkey.jdbc;

/** The outcome of one {@link VersionCas#update} call, with its attempt and conflict counts. */
public final class CasResult {

    private final boolean applied;
    private final boolean aborted;
    private final int attempts;
    private final int conflicts;
    private final long version;

    CasResult(boolean applied, boolean aborted, int attempts, int conflicts, long version) {
        this.applied = applied;
        this.aborted = aborted;
        this.attempts = attempts;
        this.conflicts = conflicts;
        this.version = version;
    }

    /**
     * Whether the update was written: one attempt's compare-and-set succeeded and its transaction (with any
     * {@link CasUpdate#andThen} work) committed.
     *
     * @return {@code true} if the row was updated
     */
    public boolean applied() {
        return applied;
    }

    /**
     * Whether the computation chose not to write ({@link CasUpdate#abort()}); nothing was written by any attempt.
     *
     * @return {@code true} if the computation returned {@link CasUpdate#abort()}
     */
    public boolean aborted() {
        return aborted;
    }

    /**
     * Whether every attempt met a concurrent update: the retry limit ({@link VersionCas.Builder#maxAttempts}) was
     * reached without writing.
     *
     * @return {@code true} if neither {@link #applied()} nor {@link #aborted()}
     */
    public boolean exhausted() {
        return !applied && !aborted;
    }

    /**
     * How many times the row was read and the computation run.
     *
     * @return the attempts made, at least 1 and at most the builder's {@code maxAttempts}
     */
    public int attempts() {
        return attempts;
    }

    /**
     * How many attempts lost the compare-and-set to a concurrent writer.
     *
     * @return the conflicting attempts: {@link #attempts()} minus one if applied or aborted, all of them if
     *         exhausted
     */
    public int conflicts() {
        return conflicts;
    }

    /**
     * The row's version as of this result.
     *
     * @return the version the write gave the row (the version read plus one) if {@link #applied()}; otherwise the
     *         version the last attempt read
     */
    public long version() {
        return version;
    }

    @Override
    public String toString() {
        return "CasResult{" + (applied ? "applied" : aborted ? "aborted" : "exhausted") + ", attempts=" + attempts
                + ", conflicts=" + conflicts + ", version=" + version + "}";
    }
}
