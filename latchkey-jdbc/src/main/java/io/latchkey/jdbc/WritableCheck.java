package io.latchkey.jdbc;

import io.latchkey.LockUnavailableException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, at connect, a database that only reads: every lock is a write. A PostgreSQL hot standby (in recovery), a
 * PostgreSQL database whose sessions are read-only by default ({@code default_transaction_read_only}), a MariaDB or
 * MySQL server with {@code read_only} on (a replica, most often; a user with {@code SUPER} could still write there,
 * and the replication stream would then overwrite or stop on those rows). Without the check the client connected
 * and the first lock failed with the server's "read-only transaction".
 *
 * <p>One query per connect. A server that refuses it (rights, another product) is taken as writable: the check
 * never fails a connect by itself.
 */
final class WritableCheck {

    private static final Logger log = LoggerFactory.getLogger(WritableCheck.class);

    private WritableCheck() {
    }

    /**
     * @param connection a connection of the client's data source
     * @param dialect the database's dialect
     * @param server the database as messages name it (no credentials)
     * @throws LockUnavailableException if the database only reads, saying why and what to connect to instead
     */
    static void require(Connection connection, SqlDialect dialect, String server) {
        String query = switch (dialect) {
            case POSTGRESQL -> "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby' "
                    + "WHEN current_setting('transaction_read_only') = 'on' THEN 'read-only' END";
            case MYSQL -> "SELECT CASE WHEN @@global.read_only = 1 THEN 'read_only' END";
            case H2 -> null;
        };
        String state = query == null ? null : answer(connection, query);
        if (state == null) {
            return;
        }
        throw new LockUnavailableException(switch (state) {
            case "standby" -> String.format("%s is a standby server in recovery (a read-only replica): locks are "
                    + "written on the primary, so connect to it (PgJDBC follows a failover with several hosts and "
                    + "targetServerType=primary in the URL)", server);
            case "read-only" -> String.format("%s opens read-only transactions (default_transaction_read_only is on "
                    + "for this database, user or server): locks write, so connect where sessions may write", server);
            default -> String.format("%s has read_only on (a replica, most often): locks are written on the primary, "
                    + "so connect to it", server);
        });
    }

    /**
     * The query's one text value, or {@code null} if it has none or fails. An application's connection without
     * auto-commit is rolled back after it, so that it goes on outside a transaction (or a failed one).
     */
    private static String answer(Connection connection, String query) {
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            log.debug("asking whether the database only reads failed: {}", e.toString());
            return null;
        } finally {
            try {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
            } catch (SQLException e) {
                log.debug("rolling back after asking whether the database only reads failed: {}", e.toString());
            }
        }
    }
}
