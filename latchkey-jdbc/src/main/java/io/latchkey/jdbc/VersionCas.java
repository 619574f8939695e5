package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The optimistic lock: read a row with its version, compute, and write only if the version is unchanged
 * ({@code UPDATE … SET …, version = version + 1 WHERE key = ? AND version = ?}), retrying on conflict with a
 * jittered exponential backoff up to a limit.
 *
 * <pre>{@code
 * VersionCas goods = VersionCas.builder(dataSource, "seckill_good", "id", "version")
 *     .columns("stockCount").maxAttempts(50).build();
 * CasResult r = goods.update(1, row -> row.getLong("stockCount") <= 0
 *     ? CasUpdate.abort()
 *     : CasUpdate.set("stockCount", row.getLong("stockCount") - 1).andThen(tx -> insertOrder(tx, 1)));
 * }</pre>
 *
 * <p>No lock is held while computing; a write happens only if nobody wrote in between. The version only ever
 * grows by one per write, so a value that went A → B → A still has a new version: no ABA. The computation may run
 * several times and must have no side effects outside {@link CasUpdate#andThen} (which runs in the winning
 * transaction only). Each attempt borrows a connection twice (read, then write transaction) and holds none while
 * backing off. Identifiers are checked; values are bind parameters. Immutable and thread-safe.
 */
public final class VersionCas {

    private final DataSource dataSource;
    private final String table;
    private final String keyColumn;
    private final String versionColumn;
    private final List<String> columns;
    private final int maxAttempts;
    private final Duration minBackoff;
    private final Duration maxBackoff;

    private VersionCas(Builder b) {
        this.dataSource = b.dataSource;
        this.table = b.table;
        this.keyColumn = b.keyColumn;
        this.versionColumn = b.versionColumn;
        this.columns = List.copyOf(b.columns);
        this.maxAttempts = b.maxAttempts;
        this.minBackoff = b.minBackoff;
        this.maxBackoff = b.maxBackoff;
    }

    /**
     * A builder for rows of {@code table} keyed by {@code keyColumn} with a numeric {@code versionColumn}.
     *
     * @param dataSource where each attempt borrows its connections; the caller keeps ownership
     * @param table the table, a plain or schema-qualified SQL identifier
     * @param keyColumn the column that picks the row, a plain SQL identifier
     * @param versionColumn the integer column that every write raises by one, a plain SQL identifier
     * @return a new builder with no columns read, 20 attempts and a backoff from 1 ms to 50 ms
     * @throws IllegalArgumentException if a name is not a plain SQL identifier
     * @throws NullPointerException if an argument is null
     */
    public static Builder builder(DataSource dataSource, String table, String keyColumn, String versionColumn) {
        return new Builder(dataSource, table, keyColumn, versionColumn);
    }

    /**
     * Reads the row {@code key}, applies {@code compute} and writes its result if the version is unchanged,
     * retrying on conflict until a write succeeds, the computation aborts, or the attempts run out.
     *
     * @param key the value of the key column of the row, bound as a parameter
     * @param compute the computation: called once per attempt with the row just read, on the calling thread, with
     *        no connection held; must not return {@code null}
     * @return the outcome: {@link CasResult#applied() applied}, {@link CasResult#aborted() aborted} or
     *         {@link CasResult#exhausted() exhausted}, with the attempt and conflict counts
     * @throws RowNotFoundException if there is no such row (also if it was deleted between attempts)
     * @throws InterruptedException if interrupted while backing off; nothing was written by the pending attempt
     * @throws SQLException if the database fails or {@link CasUpdate#andThen} work throws it; that attempt's
     *         transaction was rolled back, earlier attempts wrote nothing
     * @throws NullPointerException if {@code key} or {@code compute} is null, or {@code compute} returned null
     */
    public CasResult update(Object key, Function<CasRow, CasUpdate> compute) throws SQLException, InterruptedException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(compute, "compute");
        int conflicts = 0;
        long lastVersion = -1;
        long backoffNanos = minBackoff.toNanos();
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            CasRow row = read(key);
            lastVersion = row.version();
            CasUpdate u = Objects.requireNonNull(compute.apply(row), "compute returned null");
            if (u.isAbort()) {
                return new CasResult(false, true, attempt, conflicts, lastVersion);
            }
            if (write(key, row.version(), u)) {
                return new CasResult(true, false, attempt, conflicts, row.version() + 1);
            }
            conflicts++;
            if (attempt < maxAttempts && backoffNanos > 0) {
                long sleep = ThreadLocalRandom.current().nextLong(backoffNanos / 2, backoffNanos + 1);
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                backoffNanos = Math.min(maxBackoff.toNanos(), backoffNanos * 2);
            }
        }
        return new CasResult(false, false, maxAttempts, conflicts, lastVersion);
    }

    private CasRow read(Object key) throws SQLException {
        List<String> read = new ArrayList<>(columns);
        read.add(versionColumn);
        String sql = "SELECT " + String.join(", ", read) + " FROM " + table + " WHERE " + keyColumn + " = ?";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new RowNotFoundException(String.format("no row in %s with %s = %s", table, keyColumn, key));
                }
                Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    values.put(columns.get(i), rs.getObject(i + 1));
                }
                return new CasRow(values, rs.getLong(columns.size() + 1));
            }
        }
    }

    private boolean write(Object key, long version, CasUpdate u) throws SQLException {
        StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ");
        u.values().keySet().forEach(column -> sql.append(column).append(" = ?, "));
        sql.append(versionColumn).append(" = ").append(versionColumn).append(" + 1 WHERE ").append(keyColumn)
                .append(" = ? AND ").append(versionColumn).append(" = ?");
        List<Object> params = new ArrayList<>(u.values().values());
        params.add(key);
        params.add(version);
        try (Connection c = dataSource.getConnection()) {
            return SqlWork.inTransaction(null, c, tx -> {
                int updated;
                try (PreparedStatement ps = tx.prepareStatement(sql.toString())) {
                    for (int i = 0; i < params.size(); i++) {
                        ps.setObject(i + 1, params.get(i));
                    }
                    updated = ps.executeUpdate();
                }
                if (updated == 0) {
                    tx.rollback();
                    return false;
                }
                if (u.andThenWork() != null) {
                    u.andThenWork().apply(tx);
                }
                return true;
            });
        }
    }

    @Override
    public String toString() {
        return "VersionCas{" + table + "." + keyColumn + ", version " + versionColumn + ", columns " + columns
                + ", maxAttempts " + maxAttempts + "}";
    }

    /** Builds {@link VersionCas}; not thread-safe. */
    public static final class Builder {
        private final DataSource dataSource;
        private final String table;
        private final String keyColumn;
        private final String versionColumn;
        private final List<String> columns = new ArrayList<>();
        private int maxAttempts = 20;
        private Duration minBackoff = Duration.ofMillis(1);
        private Duration maxBackoff = Duration.ofMillis(50);

        private Builder(DataSource dataSource, String table, String keyColumn, String versionColumn) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.table = SqlIdentifiers.qualifiedName("table", table);
            this.keyColumn = SqlIdentifiers.identifier("keyColumn", keyColumn);
            this.versionColumn = SqlIdentifiers.identifier("versionColumn", versionColumn);
        }

        /**
         * Adds columns the computation reads, in {@link CasRow#get}; the version is always read.
         *
         * @param columns plain SQL identifiers
         * @return this builder
         * @throws IllegalArgumentException if a name is not a plain SQL identifier
         */
        public Builder columns(String... columns) {
            for (String c : columns) {
                this.columns.add(SqlIdentifiers.identifier("column", c));
            }
            return this;
        }

        /**
         * The most attempts per update (default 20).
         *
         * @param maxAttempts reads-and-computes per {@link VersionCas#update} call before it gives up
         * @return this builder
         * @throws IllegalArgumentException if not between 1 and 10,000
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1 || maxAttempts > 10_000) {
                throw new IllegalArgumentException(
                        String.format("maxAttempts must be between 1 and 10000 but was %d", maxAttempts));
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * The backoff after a conflict: starts at {@code min}, doubles up to {@code max}, each sleep jittered
         * (default 1 ms to 50 ms). Zero {@code min} retries at once.
         *
         * @param min the first backoff; each sleep is a random time between half of the current backoff and all of it
         * @param max the largest backoff
         * @return this builder
         * @throws IllegalArgumentException if {@code min} is negative or greater than {@code max}
         */
        public Builder backoff(Duration min, Duration max) {
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
            if (min.isNegative() || min.compareTo(max) > 0) {
                throw new IllegalArgumentException(String.format(
                        "backoff needs 0 <= min <= max but was min=%s, max=%s", min, max));
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /**
         * Builds the optimistic lock; the builder may be reused.
         *
         * @return an immutable, thread-safe {@link VersionCas} with this builder's settings
         */
        public VersionCas build() {
            return new VersionCas(this);
        }
    }
}
