package io.latchkey.jdbc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link VersionCas} computation decided: new column values (and optional extra work in the same
 * transaction, such as inserting an order), or to abort without writing (such as "sold out").
 */
public final class CasUpdate {

    private final Map<String, Object> values;
    private final RowCallback<?> andThen;

    private CasUpdate(Map<String, Object> values, RowCallback<?> andThen) {
        this.values = values;
        this.andThen = andThen;
    }

    /**
     * Sets {@code column} to {@code value}.
     *
     * @throws IllegalArgumentException if {@code column} is not a plain SQL identifier
     */
    public static CasUpdate set(String column, Object value) {
        return new CasUpdate(new LinkedHashMap<>(), null).and(column, value);
    }

    /** Writes nothing: {@link CasResult#applied()} is then {@code false} and {@link CasResult#aborted()} true. */
    public static CasUpdate abort() {
        return new CasUpdate(null, null);
    }

    /** Also sets {@code column} to {@code value}. */
    public CasUpdate and(String column, Object value) {
        if (values == null) {
            throw new IllegalStateException("an aborted update sets nothing");
        }
        Map<String, Object> m = new LinkedHashMap<>(values);
        m.put(SqlIdentifiers.identifier("column", column), value);
        return new CasUpdate(m, andThen);
    }

    /**
     * Runs {@code work} in the transaction of a successful compare-and-set, before it commits: both or neither
     * happen. Not run for a conflicting attempt.
     */
    public CasUpdate andThen(RowCallback<?> work) {
        if (values == null) {
            throw new IllegalStateException("an aborted update runs nothing");
        }
        return new CasUpdate(values, Objects.requireNonNull(work, "work"));
    }

    boolean isAbort() {
        return values == null;
    }

    Map<String, Object> values() {
        return values;
    }

    RowCallback<?> andThenWork() {
        return andThen;
    }
}
