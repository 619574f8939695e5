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
     * @param column the column to write, a plain SQL identifier (it need not be one the row read)
     * @param value the new value, bound with {@link java.sql.PreparedStatement#setObject(int, Object)}
     * @return an update that writes that one column (and the version)
     * @throws IllegalArgumentException if {@code column} is not a plain SQL identifier
     * @throws NullPointerException if {@code column} is null
     */
    public static CasUpdate set(String column, Object value) {
        return new CasUpdate(new LinkedHashMap<>(), null).and(column, value);
    }

    /**
     * Writes nothing: {@link VersionCas#update} returns at once, without retrying, with
     * {@link CasResult#applied()} {@code false} and {@link CasResult#aborted()} {@code true}.
     *
     * @return the aborting update, to which {@link #and} and {@link #andThen} cannot add
     */
    public static CasUpdate abort() {
        return new CasUpdate(null, null);
    }

    /**
     * Also sets {@code column} to {@code value}; a column set twice (spelled the same) keeps the later
     * value. This update is unchanged.
     *
     * @param column the column to write, a plain SQL identifier
     * @param value the new value, bound with {@link java.sql.PreparedStatement#setObject(int, Object)}
     * @return a new update with this one's columns and work plus {@code column}
     * @throws IllegalArgumentException if {@code column} is not a plain SQL identifier
     * @throws IllegalStateException if this is {@link #abort()}
     */
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
     * happen. Not run for a conflicting attempt. If {@code work} throws, the transaction rolls back and
     * {@link VersionCas#update} throws that exception without retrying. This update is unchanged.
     *
     * @param work the extra work, on the write's connection; it must not commit, roll back or close it. Replaces
     *        work given earlier
     * @return a new update with this one's columns and {@code work}
     * @throws IllegalStateException if this is {@link #abort()}
     * @throws NullPointerException if {@code work} is null
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
