package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Finds out whether PostgreSQL connections keep a session, the way that matters to the client: {@code LISTEN} on
 * one connection, {@code NOTIFY} from another connection of the data source, and see whether the notification
 * arrives. On a direct connection (or a pooler in session mode) it arrives within milliseconds; behind a pooler in
 * transaction mode (PgBouncer's {@code pool_mode = transaction}) the {@code LISTEN} stays on a server connection
 * that went back to the pool after its transaction, and nothing arrives.
 */
final class SessionProbe {

    /** How long a notification may take to arrive before the connections count as session-less. */
    static final Duration WAIT = Duration.ofSeconds(1);

    /** How the message names a transaction pooler (the client cannot tell which product it is). */
    static final String POOLER = "a connection pooler in transaction mode (such as PgBouncer with pool_mode = "
            + "transaction)";

    private SessionProbe() {
    }

    /**
     * Whether a notification sent on a connection of {@code notifyFrom} arrives on {@code listen} within
     * {@code wait}. Leaves {@code listen} listening on nothing it did not listen on before.
     */
    static boolean notificationsArrive(Connection listen, DataSource notifyFrom, Duration wait) throws SQLException {
        String channel = "latchkey_probe_" + UUID.randomUUID().toString().replace("-", "");
        String payload = Long.toHexString(System.nanoTime());
        boolean autoCommit = listen.getAutoCommit();
        listen.setAutoCommit(true);
        try {
            try (Statement s = listen.createStatement()) {
                s.execute("LISTEN " + channel);
            }
            try (Connection c = notifyFrom.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true);
                }
                ps.setString(1, channel);
                ps.setString(2, payload);
                ps.executeQuery().close();
            }
            PGConnection pg = listen.unwrap(PGConnection.class);
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() < deadline) {
                PGNotification[] ns = pg.getNotifications(50);
                if (ns != null) {
                    for (PGNotification n : ns) {
                        if (channel.equals(n.getName()) && payload.equals(n.getParameter())) {
                            return true;
                        }
                    }
                }
            }
            return false;
        } finally {
            try (Statement s = listen.createStatement()) {
                s.execute("UNLISTEN " + channel);
            } catch (SQLException e) {
                // Best effort: behind a transaction pooler this may run on another server connection anyway.
            }
            listen.setAutoCommit(autoCommit);
        }
    }
}
