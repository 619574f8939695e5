package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dedicated PostgreSQL connection per client that {@code LISTEN}s on the lock table's release channel and
 * passes each notification's payload (a released lock's row key, or a counted resource's key from
 * {@link CountWakeups}) to every target. Started with the client, stopped by {@link #close()}.
 *
 * <p>Notifications are delivered only while the connection lives: after it breaks, the listener reconnects with
 * a backoff and then calls {@code onResync} so that every waiter re-checks (a release may have been missed).
 * Waiters also keep a bounded fallback re-check, so a lost notification costs a delay, never a hang.
 */
final class PgReleaseListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgReleaseListener.class);
    private static final int POLL_MILLIS = 250;

    private final Connections connections;
    private final String channel;
    private final String threadName;
    private final List<Consumer<String>> onRelease = new CopyOnWriteArrayList<>();
    private final List<Runnable> onResync = new CopyOnWriteArrayList<>();
    private final ReentrantLock startLock = new ReentrantLock();
    private final CompletableFuture<Void> listening = new CompletableFuture<>();
    private volatile boolean running;
    private Thread thread;

    /** Where the listener opens its connection: the client's data source, or a direct URL past a pooler. */
    @FunctionalInterface
    interface Connections {
        Connection open() throws SQLException;
    }

    /** A listener with no receiver yet ({@link #addTarget}); nothing runs until {@link #start()}. */
    PgReleaseListener(Connections connections, String channel, String threadName) {
        this.connections = connections;
        this.channel = channel;
        this.threadName = threadName;
    }

    /**
     * Adds a receiver of every payload ({@code onRelease}) and of "look again, something may have been missed"
     * after a reconnect ({@code onResync}); both run on the listener thread and must not block.
     */
    void addTarget(Consumer<String> onRelease, Runnable onResync) {
        this.onRelease.add(onRelease);
        this.onResync.add(onResync);
    }

    /** Starts the listener thread if needed; the future completes once {@code LISTEN} is in effect. */
    CompletableFuture<Void> start() {
        if (listening.isDone()) {
            return listening;
        }
        startLock.lock();
        try {
            if (thread == null) {
                running = true;
                thread = new Thread(this::run, threadName);
                thread.setDaemon(true);
                thread.start();
            }
        } finally {
            startLock.unlock();
        }
        return listening;
    }

    private void run() {
        long backoff = 50;
        while (running) {
            try (Connection c = connections.open()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN \"" + channel + "\"");
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                if (!listening.complete(null)) {
                    onResync.forEach(Runnable::run);
                }
                backoff = 50;
                while (running) {
                    PGNotification[] ns = pg.getNotifications(POLL_MILLIS);
                    if (ns != null) {
                        for (PGNotification n : ns) {
                            for (Consumer<String> target : onRelease) {
                                target.accept(n.getParameter());
                            }
                        }
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
        Thread t;
        startLock.lock();
        try {
            t = thread;
        } finally {
            startLock.unlock();
        }
        if (t != null) {
            try {
                t.join(POLL_MILLIS * 4L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        listening.completeExceptionally(new IllegalStateException("client closed"));
    }
}
