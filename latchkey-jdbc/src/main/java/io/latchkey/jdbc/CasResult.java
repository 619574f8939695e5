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

    /** Whether the update was written. */
    public boolean applied() {
        return applied;
    }

    /** Whether the computation chose not to write ({@link CasUpdate#abort()}). */
    public boolean aborted() {
        return aborted;
    }

    /** Whether every attempt met a concurrent update: the retry limit was reached without writing. */
    public boolean exhausted() {
        return !applied && !aborted;
    }

    /** How many times the row was read and the computation run. */
    public int attempts() {
        return attempts;
    }

    /** How many attempts lost the compare-and-set to a concurrent writer. */
    public int conflicts() {
        return conflicts;
    }

    /** The version the row has after a successful write, or the last version read otherwise. */
    public long version() {
        return version;
    }

    @Override
    public String toString() {
        return "CasResult{" + (applied ? "applied" : aborted ? "aborted" : "exhausted") + ", attempts=" + attempts
                + ", conflicts=" + conflicts + ", version=" + version + "}";
    }
}
