package io.latchkey.jdbc.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.jdbc.JdbcLockClient;
import io.latchkey.jdbc.JdbcOptions;
import io.latchkey.tck.ServerStateTck;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The TCK's {@link ServerStateTck} on a lease table of its own per test class: {@link #serverObjects()} counts the
 * table's rows with a plain JDBC query; {@link #loseServerData()} deletes every row, which is what a restore of the
 * table (or a truncation by an operator) leaves, while the token sequence, the state meant to survive, stays.
 * {@link #aDatabaseThatLostTheSequenceTooStillIssuesHigherTokens} goes further: table and sequence dropped.
 */
abstract class JdbcServerStateTck extends ServerStateTck {

    private final String table = "tck_state_" + UUID.randomUUID().toString().substring(0, 8);

    /** The JDBC URL of the database under test. */
    abstract String url();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return JdbcLockClient.create(url(), 4, options, JdbcOptions.builder().tableName(table).build());
    }

    @Override
    protected String backendName() {
        return "jdbc";
    }

    @Override
    protected Duration watchdogTimeout() {
        return JdbcTckDatabases.WATCHDOG;
    }

    /** The rows of the lock table and of the counted primitives' tables (which exist once a latch was used). */
    @Override
    protected long serverObjects() throws Exception {
        client(); // the table exists once a client has started
        long rows = 0;
        try (Connection c = DriverManager.getConnection(url())) {
            for (String t : new String[] {table, table + "_counts", table + "_permits"}) {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    rs.next();
                    rows += rs.getLong(1);
                } catch (java.sql.SQLException e) {
                    if (t.equals(table)) {
                        throw e;
                    }
                    if (!c.getAutoCommit()) {
                        c.rollback();
                    }
                }
            }
        }
        return rows;
    }

    @Override
    protected void loseServerData() throws Exception {
        execute("DELETE FROM " + table);
    }

    @Test
    void aDatabaseThatLostTheSequenceTooStillIssuesHigherTokens() throws Exception {
        String name = newName();
        long last;
        try (LockLease lease = client().lock(name).acquire(Duration.ofSeconds(30))) {
            last = lease.fencingToken();
        }
        // Everything of the lock table gone, as on a new database: the next client creates both again, the
        // sequence starting at the database's clock in microseconds.
        execute("DROP TABLE " + table);
        execute("DROP SEQUENCE " + table + "_token");
        LockClient fresh = openClient();
        try (LockLease lease = fresh.lock(name).acquire(Duration.ofSeconds(30))) {
            assertThat(lease.fencingToken()).as("first token of a re-created sequence").isGreaterThan(last);
        }
    }

    private void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
