package io.latchkey.jdbc;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** One row as {@link VersionCas} read it: the requested columns (names case-insensitive) and the version. */
public final class CasRow {

    private final Map<String, Object> values;
    private final long version;

    CasRow(Map<String, Object> values, long version) {
        TreeMap<String, Object> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        m.putAll(values);
        this.values = Collections.unmodifiableMap(m);
        this.version = version;
    }

    /**
     * The value of {@code column} as the driver returned it ({@link java.sql.ResultSet#getObject(int)}).
     *
     * @param column a column named in {@link VersionCas.Builder#columns}, in any letter case
     * @return the value, {@code null} for SQL {@code NULL}
     * @throws IllegalArgumentException if {@code column} was not read
     */
    public Object get(String column) {
        if (!values.containsKey(column)) {
            throw new IllegalArgumentException(String.format("column %s was not read; read columns: %s", column,
                    values.keySet()));
        }
        return values.get(column);
    }

    /**
     * The value of a numeric {@code column} as a long ({@link Number#longValue()}, which truncates fractions).
     *
     * @param column a column named in {@link VersionCas.Builder#columns}, in any letter case
     * @return the value as a long
     * @throws IllegalArgumentException if {@code column} was not read, or its value is SQL {@code NULL} or not a
     *         {@link Number}
     */
    public long getLong(String column) {
        Object v = get(column);
        if (!(v instanceof Number)) {
            throw new IllegalArgumentException(String.format("column %s is not numeric: %s", column, v));
        }
        return ((Number) v).longValue();
    }

    /**
     * The row's version when it was read: the one the write of this attempt compares against.
     *
     * @return the value of the version column
     */
    public long version() {
        return version;
    }

    @Override
    public String toString() {
        return "CasRow" + values + "@v" + version;
    }
}
