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

    /** The value of {@code column} as the driver returned it. */
    public Object get(String column) {
        if (!values.containsKey(column)) {
            throw new IllegalArgumentException(String.format("column %s was not read; read columns: %s", column,
                    values.keySet()));
        }
        return values.get(column);
    }

    /** The value of a numeric {@code column} as a long. */
    public long getLong(String column) {
        Object v = get(column);
        if (!(v instanceof Number)) {
            throw new IllegalArgumentException(String.format("column %s is not numeric: %s", column, v));
        }
        return ((Number) v).longValue();
    }

    /** The row's version when it was read. */
    public long version() {
        return version;
    }

    @Override
    public String toString() {
        return "CasRow" + values + "@v" + version;
    }
}
