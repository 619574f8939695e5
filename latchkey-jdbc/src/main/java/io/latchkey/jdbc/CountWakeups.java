package io.latchkey.jdbc;

import io.latchkey.core.RemoteCountOps.Subscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who waits for which counted resource in one client, and how they are told of a change: the engine's
 * {@link io.latchkey.core.RemoteCountOps#subscribe subscriptions} by key ({@code kind U+001E row key}; names hold no
 * control characters, so a key never equals a lock row's key on the shared channel).
 *
 * <ul>
 *   <li>A change made by this client wakes this client's subscribers at once ({@link #changed(Connection, String)}).
 *   <li>On PostgreSQL the same call sends {@code NOTIFY} on the lease table's channel, which the client's one
 *       {@link PgReleaseListener} of every client passes to {@link #changed(String)}; after the listener reconnects
 *       everybody looks again ({@link #changedAll()}).
 *   <li>A leased permit's end publishes nothing: the attempt that found no permit tells the engine when to look
 *       again (the earliest lease end it read).
 *   <li>Elsewhere (MariaDB, MySQL, H2) other clients' changes are seen by the engine's re-check.
 * </ul>
 *
 * Subscribers are plain {@link Runnable}s that must not block; wake-ups run on the listener's or an I/O thread.
 */
final class CountWakeups {

    private final String channel;
    private final PgReleaseListener listener;
    private final Map<String, Set<Runnable>> subscribers = new ConcurrentHashMap<>();

    /**
     * @param listener PostgreSQL's listener, or {@code null} on databases without notifications
     */
    CountWakeups(String channel, PgReleaseListener listener) {
        this.channel = channel;
        this.listener = listener;
        if (listener != null) {
            listener.addTarget(this::changed, this::changedAll);
        }
    }

    /** The key of one counted resource: its kind and its row key. */
    static String key(String kind, String rowKey) {
        return kind + '\u001e' + rowKey;
    }

    /** Whether other clients' changes are pushed (PostgreSQL). */
    boolean pushes() {
        return listener != null;
    }

    /**
     * Registers {@code changed} for {@code key}; completes once notifications are being received (at once where
     * there are none).
     */
    CompletableFuture<Subscription> subscribe(String key, Runnable changed) {
        subscribers.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(changed);
        Subscription sub = () -> subscribers.computeIfPresent(key, (k, set) -> {
            set.remove(changed);
            return set.isEmpty() ? null : set;
        });
        if (listener == null) {
            return CompletableFuture.completedFuture(sub);
        }
        return listener.start().handle((v, e) -> {
            if (e != null) {
                sub.close();
                throw new java.util.concurrent.CompletionException(e);
            }
            return sub;
        });
    }

    /** {@code key} changed in a way that may let a waiter in: this client's subscribers look again. */
    void changed(String key) {
        Set<Runnable> set = subscribers.get(key);
        if (set != null) {
            set.forEach(Runnable::run);
        }
    }

    /** Every subscriber looks again (a notification may have been missed). */
    void changedAll() {
        subscribers.values().forEach(set -> set.forEach(Runnable::run));
    }

    /**
     * This client changed {@code key} on {@code c} (committed): tells its own subscribers and, on PostgreSQL, every
     * other client's.
     */
    void changed(Connection c, String key) throws SQLException {
        if (listener != null) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                ps.setString(1, channel);
                ps.setString(2, key);
                ps.executeQuery().close();
            }
        }
        changed(key);
    }
}
