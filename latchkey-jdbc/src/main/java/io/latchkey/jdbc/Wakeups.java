package io.latchkey.jdbc;

import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps.Subscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who waits for which key in one client ({@link PushRegistry}), and how they are told of a change. A key is a lock
 * row's key, or {@code kind U+001E row key} for a counted resource ({@link #key}); names hold no control characters,
 * so the two never meet on the shared channel.
 *
 * <ul>
 *   <li>A change made by this client wakes this client's subscribers at once ({@link #changed(Connection, String)}).
 *   <li>On PostgreSQL the same call sends {@code NOTIFY} on the lease table's channel. Each client keeps one
 *       dedicated connection that {@code LISTEN}s on it (a daemon thread {@code <prefix>-listen}, started with the
 *       client, stopped by {@link #close()}) and fires each payload. Notifications arrive only while that connection
 *       lives: after it breaks, it reconnects with a back-off and then wakes everybody, since a release may have been
 *       missed; waiters also keep the engine's bounded re-check, so a lost notification costs a delay, never a hang.
 *   <li>Elsewhere (MariaDB, MySQL, H2, or behind a transaction pooler without a listen URL) other clients' changes
 *       are seen by the engine's re-check.
 * </ul>
 */
final class Wakeups implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Wakeups.class);
    private static final int POLL_MILLIS = 250;

    /** Where the listener opens its connection: the client's data source, or a direct URL past a pooler. */
    @FunctionalInterface
    interface Connections {
        Connection open() throws SQLException;
    }

    private final String channel;
    private final Connections listenOn;
    private final PushRegistry<Void> registry;
    private final CompletableFuture<Void> listening = new CompletableFuture<>();
    private volatile boolean running = true;
    /** The listener, or {@code null} without notifications. */
    private final Thread thread;

    /**
     * @param listenOn where PostgreSQL's listener opens its connection, or {@code null} on databases without
     *        notifications; the listener starts at once, so the first waiter needs no connection set-up
     */
    Wakeups(String channel, Connections listenOn, String threadName) {
        this.channel = channel;
        this.listenOn = listenOn;
        // a subscription takes effect once LISTEN is in effect; the listener is the client's, not the name's
        this.registry = listenOn == null ? new PushRegistry<>()
                : new PushRegistry<>(name -> listening.thenApply(v -> () -> { }));
        this.thread = listenOn == null ? null : new Thread(this::listen, threadName);
        if (thread != null) {
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** The key of one counted resource: its kind and its row key. */
    static String key(String kind, String rowKey) {
        return kind + '\u001e' + rowKey;
    }

    /** Whether other clients' changes are pushed (PostgreSQL). */
    boolean pushes() {
        return listenOn != null;
    }

    /** Tells {@code changed} of every change of {@code key}; completes once notifications are received. */
    CompletableFuture<Subscription> subscribe(String key, Runnable changed) {
        return registry.subscribe(key, changed);
    }

    /** How many keys this client waits for now (short polling shares its rate among them). */
    int waitedFor() {
        return registry.size();
    }

    /** {@code key} changed in a way that may let a waiter in: this client's subscribers look again. */
    void changed(String key) {
        registry.fire(key, null);
    }

    /** Every subscriber looks again (a change may have been missed). */
    void changedAll() {
        registry.fireAll();
    }

    /** This client changed {@code key} on {@code c}: tells its own subscribers and, on PostgreSQL, every client's. */
    void changed(Connection c, String key) throws SQLException {
        if (listenOn != null) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                ps.setString(1, channel);
                ps.setString(2, key);
                ps.executeQuery().close();
            }
        }
        changed(key);
    }

    private void listen() {
        long backoff = 50;
        while (running) {
            try (Connection c = listenOn.open()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN \"" + channel + "\"");
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                if (!listening.complete(null)) {
                    changedAll();
                }
                backoff = 50;
                while (running) {
                    PGNotification[] ns = pg.getNotifications(POLL_MILLIS);
                    for (PGNotification n : ns == null ? new PGNotification[0] : ns) {
                        changed(n.getParameter());
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    break;
                }
                log.warn("LISTEN connection for channel {} failed, reconnecting in {} ms: {}", channel, backoff,
                        e.toString());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    break;
                }
                backoff = Math.min(backoff * 2, 2_000);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        registry.close();
        if (thread != null) {
            try {
                thread.join(POLL_MILLIS * 4L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        listening.completeExceptionally(new IllegalStateException("client closed"));
    }
}
