package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The resource side of fencing: makes a write conditional on the writer's {@link io.latchkey.LockLease#fencingToken()
 * fencing token}, refusing any token lower than the highest one already seen for that resource. A holder that
 * paused (GC, network) past its lease and then writes late is refused, because the next holder's write raised the
 * resource's token.
 *
 * <pre>{@code
 * FencingGuard guard = FencingGuard.create(dataSource);
 * try (LockLease lease = lock.acquire()) {
 *     guard.write("invoice:42", lease.fencingToken(), tx -> updateInvoice(tx, 42));   // StaleTokenException if late
 * }
 * }</pre>
 *
 * <h2>How</h2>
 * One row per resource in a fencing table ({@value JdbcOptions#DEFAULT_FENCING_TABLE} by default, created on
 * first use; DDL: {@link SqlDialect#fencingTableDdl(String)}) holds the highest token seen. Inside the write's
 * transaction, {@code UPDATE … SET token = ? WHERE resource_name = ? AND token <= ?} both checks and raises it and
 * locks the row until commit, so concurrent writers of one resource are serialized and the check and the write
 * commit together. Equal tokens pass: one holder may write several times. Immutable and thread-safe.
 */
public final class FencingGuard {

    private final DataSource dataSource;
    private final SqlDialect dialect;
    private final String table;
    private final String ensureRow;
    private final String raise;

    private FencingGuard(DataSource dataSource, SqlDialect dialect, String table) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.table = table;
        switch (dialect) {
            case POSTGRESQL:
                ensureRow = "INSERT INTO " + table + " (resource_name, token) VALUES (?, -1) ON CONFLICT DO NOTHING";
                break;
            case MYSQL:
                ensureRow = "INSERT IGNORE INTO " + table + " (resource_name, token) VALUES (?, -1)";
                break;
            default:
                ensureRow = "MERGE INTO " + table + " f USING (VALUES (CAST(? AS VARCHAR(650)))) s(r)"
                        + " ON f.resource_name = s.r WHEN NOT MATCHED THEN INSERT (resource_name, token) VALUES (s.r, -1)";
                break;
        }
        raise = "UPDATE " + table + " SET token = ? WHERE resource_name = ? AND token <= ?";
    }

    /**
     * A guard on the default fencing table {@value JdbcOptions#DEFAULT_FENCING_TABLE}, created if missing. Borrows
     * one connection for the duration of this call.
     *
     * @param dataSource where the guard borrows its connections; the caller keeps ownership
     * @return the guard
     * @throws IllegalArgumentException if the database is not PostgreSQL, MariaDB/MySQL or H2
     * @throws SQLException if the database cannot be reached or the table cannot be created
     */
    public static FencingGuard create(DataSource dataSource) throws SQLException {
        return create(dataSource, JdbcOptions.DEFAULT_FENCING_TABLE, true);
    }

    /**
     * A guard on {@code table}. Borrows one connection for the duration of this call to detect the dialect and,
     * if asked, run {@link SqlDialect#fencingTableDdl(String)}; a missing table is not detected here when
     * {@code createTable} is off, but fails the first {@link #admit} or {@link #write}.
     *
     * @param dataSource where the guard borrows its connections; the caller keeps ownership
     * @param table the fencing table, a plain or schema-qualified SQL identifier
     * @param createTable whether to create the table if it is missing
     * @return the guard
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier, or the
     *         database is not supported
     * @throws SQLException if the database cannot be reached or the table cannot be created
     */
    public static FencingGuard create(DataSource dataSource, String table, boolean createTable) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        String t = SqlIdentifiers.qualifiedName("table", table);
        try (Connection c = dataSource.getConnection()) {
            SqlDialect dialect = SqlDialect.of(c.getMetaData());
            if (createTable) {
                try (Statement s = c.createStatement()) {
                    s.execute(dialect.fencingTableDdl(t));
                }
                if (!c.getAutoCommit()) {
                    c.commit();
                }
            }
            return new FencingGuard(dataSource, dialect, t);
        }
    }

    /**
     * Inside the caller's transaction on {@code transaction}: records {@code token} for {@code resource} if it is
     * not lower than the highest seen, and locks the resource's fencing row until the transaction ends.
     *
     * Does not commit or roll back: the caller ends the transaction. Once a token was admitted, concurrent
     * transactions admitting the same resource wait for this one to end.
     *
     * @param transaction the caller's connection, with auto-commit off (with auto-commit on, the check and the
     *        caller's write do not commit together and the row is not held)
     * @param resource the protected resource, any string up to 650 characters
     * @param token the writer's fencing token, such as {@link io.latchkey.LockLease#fencingToken()}
     * @return {@code true} if the write may proceed; {@code false} if the token is stale (the caller should roll
     *         back)
     * @throws SQLException if a statement fails, such as a lock wait that ran out
     * @throws NullPointerException if {@code transaction} or {@code resource} is null
     */
    public boolean admit(Connection transaction, String resource, long token) throws SQLException {
        Objects.requireNonNull(transaction, "transaction");
        Objects.requireNonNull(resource, "resource");
        try (PreparedStatement ps = transaction.prepareStatement(ensureRow)) {
            ps.setString(1, resource);
            ps.executeUpdate();
        } catch (SQLException e) {
            // H2 only: two first writers of a new resource raced on the insert; the row exists now either way.
            if (dialect != SqlDialect.H2 || e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
        }
        try (PreparedStatement ps = transaction.prepareStatement(raise)) {
            ps.setLong(1, token);
            ps.setString(2, resource);
            ps.setLong(3, token);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Runs {@code write} in a new transaction if {@code token} is not lower than the highest seen for
     * {@code resource}; commits both the token and the write, or neither. Holds one connection of the data source
     * for the whole call; writers of the same resource run one after another.
     *
     * @param <T> the type of the write's result
     * @param resource the protected resource, any string up to 650 characters
     * @param token the writer's fencing token, such as {@link io.latchkey.LockLease#fencingToken()}
     * @param write the write, run on the new transaction after the token was admitted
     * @return what {@code write} returned, after the transaction committed
     * @throws StaleTokenException if the token is stale; nothing was written
     * @throws SQLException if the database fails or {@code write} throws it; the transaction was rolled back
     * @throws NullPointerException if {@code resource} or {@code write} is null
     */
    public <T> T write(String resource, long token, RowCallback<T> write) throws SQLException {
        Objects.requireNonNull(write, "write");
        try (Connection c = dataSource.getConnection()) {
            return SqlWork.inTransaction(null, c, tx -> {
                if (!admit(tx, resource, token)) {
                    throw new StaleTokenException(resource, token, String.format("refused a write to %s with fencing "
                            + "token %d: a higher token has been seen (in %s); the writer's lock was lost", resource,
                            token, table));
                }
                return write.apply(tx);
            });
        }
    }

    @Override
    public String toString() {
        return "FencingGuard{" + table + ", " + dialect + "}";
    }
}
