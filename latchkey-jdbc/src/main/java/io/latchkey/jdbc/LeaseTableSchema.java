package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates or upgrades the lease table and its token sequence when a client starts; idempotent, and safe when
 * several clients start at once.
 *
 * <h2>Upgrade from the counter-per-row layout</h2>
 * Earlier versions kept each name's fencing counter in its row and never deleted rows. The table's columns are
 * unchanged; what is added is the sequence, created with a start of the larger of the database's clock in epoch
 * microseconds and the table's highest token plus one, so the first token it issues is above every counter an old
 * row holds. Old rows are then ordinary rows: a held one is released (deleted) by its owner's release, a free or
 * expired one is taken over by the next acquire of its name (with a sequence token) or deleted by the reaper. Clients
 * of the old version must not run against the table once the new one does: they would insert rows with a counter
 * that starts again at 1.
 */
final class LeaseTableSchema {

    private LeaseTableSchema() {
    }

    /**
     * Makes sure the table and the sequence exist, and adds the {@code client_name} column to a table of an earlier
     * version that lacks it (if {@code create} is on; otherwise holders show as {@code unknown}).
     *
     * @return whether the table has the {@code client_name} column
     * @throws IllegalStateException naming the missing object and its DDL if one is missing and {@code create} is off
     */
    static boolean ensure(JdbcRunner runner, LeaseTableSql sql, boolean create) {
        String tableDdl = sql.dialect.lockTableDdl(sql.table);
        String sequenceDdl = sql.dialect.tokenSequenceDdl(sql.table);
        runner.call("check lock table " + sql.table, c -> {
            if (!usable(c, sql.probe)) {
                missing(create, "the lock table " + sql.table, runner, tableDdl + ";" + System.lineSeparator() + sequenceDdl);
                execute(c, tableDdl);
            }
            // Probing takes a value (a gap in the tokens, harmless); PostgreSQL and H2 have no cheaper portable test.
            if (!usable(c, sql.nextTokenQuery)) {
                missing(create, "the token sequence " + sql.sequence + " of the lock table " + sql.table, runner,
                        sequenceDdl);
                createSequence(c, sql);
            }
            return null;
        });
        return ensureColumn(runner, sql, create, "client_name", sql.probeClientColumn,
                sql.dialect.clientNameColumnDdl(sql.table), "holders show as 'unknown'", false);
    }

    /** Fails naming {@code what} and the {@code ddl} that creates it, unless {@code create} is on. */
    static void missing(boolean create, String what, JdbcRunner runner, String ddl) {
        if (!create) {
            throw new IllegalStateException(String.format("%s does not exist (or lacks the expected columns) in %s and "
                    + "createTable is off; create it with:%n%s", what, runner.server(), ddl));
        }
    }

    /**
     * Adds the {@code attempt_id} column to a table of an earlier version that lacks it (if {@code create} is on;
     * otherwise a row whose acquire answer never reached its client is not removed by the attempt's clean-up but
     * blocks other owners until its lease runs out, which is logged once, with the DDL).
     *
     * @return whether the table has the {@code attempt_id} column
     */
    static boolean ensureAttemptColumn(JdbcRunner runner, LeaseTableSql sql, boolean create) {
        return ensureColumn(runner, sql, create, "attempt_id", sql.probeAttemptColumn,
                sql.dialect.attemptIdColumnDdl(sql.table), "a lock row whose acquire answer never reached its client "
                        + "(an operation timeout, a lost connection) blocks other owners until its lease runs out", true);
    }

    private static boolean ensureColumn(JdbcRunner runner, LeaseTableSql sql, boolean create, String column,
                                        String probe, String ddl, String without, boolean warn) {
        return runner.call("check column " + column + " of " + sql.table, c -> {
            if (usable(c, probe)) {
                return true;
            }
            if (create) {
                try {
                    execute(c, ddl);
                } catch (SQLException e) {
                    if (!c.getAutoCommit()) {
                        c.rollback();
                    }
                    // another client added it at the same moment, or the user may not alter the table
                }
                if (usable(c, probe)) {
                    return true;
                }
            }
            org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LeaseTableSchema.class);
            String message = "the lock table {} has no column {}: {}; add it with: {}";
            if (warn) {
                log.warn(message, sql.table, column, without, ddl);
            } else {
                log.info(message, sql.table, column, without, ddl);
            }
            return false;
        });
    }

    private static void createSequence(Connection c, LeaseTableSql sql) throws SQLException {
        long start;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(token), 0) + 1, " + sql.dialect.nowMicros()
                     + " FROM " + sql.table)) {
            rs.next();
            start = Math.max(rs.getLong(1), rs.getLong(2));
        }
        try {
            execute(c, sql.dialect.tokenSequenceDdl(sql.table, start));
        } catch (SQLException e) {
            // Another client created it at the same moment (PostgreSQL reports a duplicate even with IF NOT EXISTS).
            if (usable(c, sql.nextTokenQuery)) {
                return;
            }
            String product = c.getMetaData().getDatabaseProductName();
            if (product != null && product.toLowerCase(java.util.Locale.ROOT).contains("mysql")) {
                throw new IllegalStateException(String.format("the lease table's fencing tokens come from a sequence "
                        + "and %s %s has none (MariaDB 10.3+, PostgreSQL and H2 have); use one of those, or "
                        + "JdbcAdvisoryLockClient on MySQL", product, c.getMetaData().getDatabaseProductVersion()), e);
            }
            throw e;
        }
    }

    /** Runs {@code ddl} and commits it if the connection is in a transaction. */
    static void execute(Connection c, String ddl) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(ddl);
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    /** Whether {@code query} runs (the object it reads exists); rolls back a failed transaction. */
    static boolean usable(Connection c, String query) throws SQLException {
        boolean auto = c.getAutoCommit();
        try (Statement s = c.createStatement()) {
            s.executeQuery(query).close();
            if (!auto) {
                c.commit();
            }
            return true;
        } catch (SQLException e) {
            if (!auto) {
                c.rollback(); // PostgreSQL aborts the transaction on a failed statement
            }
            return false;
        }
    }
}
