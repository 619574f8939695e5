package io.latchkey.jdbc;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * The remote half of the lease-table lock: one row per held lock name, decided by single statements on the
 * database's clock ({@link LeaseTableRows}, {@link LeaseTableSql}). Releasing deletes the row; every
 * {@value #REAP_INTERVAL_SECONDS} s (at a random phase) the client deletes expired rows on its I/O pool.
 *
 * <p>Waiting ({@link JdbcLockAcquires}): a busy acquire parks no thread. Its waiter re-checks when PostgreSQL
 * notifies a release of its name (through the client's one {@link PgReleaseListener}), and otherwise after a
 * bounded pause: on PostgreSQL the holder's remaining lease capped at a second (a fallback for a lost
 * notification), elsewhere a backoff from 2 ms up to {@link JdbcOptions#maxPollInterval()}, never past the holder's
 * remaining lease or the deadline.
 */
final class JdbcLockOps implements RemoteLockOps {

    /** How often each client deletes expired rows ({@link #reapExpired}). */
    static final long REAP_INTERVAL_SECONDS = 60;

    private final JdbcRunner runner;
    private final LeaseTableSql sql;
    private final LeaseTableRows rows;
    private final JdbcLockAcquires waiters;
    private final PgReleaseListener listener;
    private volatile boolean closed;
    private final ScheduledFuture<?> reaper;

    /** On PostgreSQL listening on a connection of the runner's data source (a session), elsewhere polling. */
    JdbcLockOps(JdbcRunner runner, LeaseTableSql sql, String namespace, TimeSource time, long maxPollMillis,
                      String threadPrefix) {
        this(runner, sql, namespace, time, maxPollMillis, threadPrefix,
                sql.dialect == SqlDialect.POSTGRESQL ? runner.dataSource()::getConnection : null, false);
    }

    /**
     * @param listenOn where PostgreSQL's release listener opens its connection, or {@code null} for none (other
     *        databases, or PostgreSQL behind a transaction pooler without a direct listen URL: waiters then poll)
     * @param shortPoll whether polling waiters keep their re-checks short ({@link JdbcLockAcquires})
     */
    JdbcLockOps(JdbcRunner runner, LeaseTableSql sql, String namespace, TimeSource time, long maxPollMillis,
                      String threadPrefix, PgReleaseListener.Connections listenOn, boolean shortPoll) {
        this.runner = runner;
        this.sql = sql;
        String channel = channelOf(sql.table);
        this.rows = new LeaseTableRows(runner, sql, namespace, time, channel);
        this.waiters = new JdbcLockAcquires(runner, rows, maxPollMillis, this::release, shortPoll);
        this.listener = listenOn != null
                ? new PgReleaseListener(listenOn, channel, threadPrefix + "-listen", waiters::released,
                        waiters::wakeAll)
                : null;
        if (listener != null) {
            waiters.listenTo(listener);
            // Listening from the start: the first waiter then needs no connection set-up before it can be woken.
            listener.start();
        }
        this.reaper = runner.every(REAP_INTERVAL_SECONDS, "expired lock rows of " + sql.table, () -> !closed,
                this::reapExpired);
    }

    /** PostgreSQL's release listener of this client (which the counted primitives share); null elsewhere. */
    PgReleaseListener listener() {
        return listener;
    }

    /** The NOTIFY channel: the table name (an identifier of at most 63 characters, so a valid channel). */
    static String channelOf(String table) {
        String c = table.toLowerCase(java.util.Locale.ROOT);
        return c.length() > 63 ? c.substring(0, 63) : c;
    }

    @Override
    public CompletableFuture<Grant> acquire(AcquireRequest request) {
        if (closed) {
            return CompletableFuture.failedFuture(new LockUnavailableException("the JDBC lock client is closed"));
        }
        return waiters.acquire(request);
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        String key = rows.key(grant.name());
        return runner.async("release '" + grant.name() + "'", c -> {
            boolean released = rows.release(c, key, grant);
            if (released && listener == null) {
                waiters.released(key); // no notifications here: at least this client's waiters need not wait for a poll
            }
            return released;
        });
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        List<Grant> all = List.copyOf(grants);
        return runner.async("renew " + all.size() + " lock(s)", c -> rows.renew(c, all));
    }

    @Override
    public boolean supportsHandOff() {
        return true;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        String key = rows.key(from.name());
        return runner.async("hand off '" + from.name() + "'", c -> rows.handOff(c, key, from, request));
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String key = rows.key(name);
        return runner.async("isLocked '" + name + "'", c -> rows.isLocked(c, key));
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        String key = rows.key(name);
        return runner.async("forceUnlock '" + name + "'", c -> {
            boolean released = rows.forceUnlock(c, key);
            if (released && listener == null) {
                waiters.released(key);
            }
            return released;
        });
    }

    /** Who holds {@code name} now (owner, token, remaining lease on the database clock, since when); null if free. */
    @Override
    public CompletableFuture<String> describeHolder(String name) {
        String key = rows.key(name);
        return runner.async("describe '" + name + "'", c -> rows.describeHolder(c, key));
    }

    /**
     * Deletes expired rows (crashed or cut-off holders' rows nobody took over), in batches of
     * {@value LeaseTableSql#REAP_BATCH} until none is left or the statement deleted fewer; returns how many. Safe at
     * any time: an expired row's holder has lost it by the database's clock (its renewal and release match the row
     * by token and find nothing), and the next holder of the name takes a new token from the sequence either way.
     */
    long reapExpired() {
        return runner.call("reclaim expired rows of " + sql.table, c -> {
            long total = rows.reapExpired(c);
            if (total > 0 && listener == null) {
                waiters.wakeAll();
            }
            return total;
        });
    }

    void close() {
        closed = true;
        ScheduledFuture<?> r = reaper;
        if (r != null) {
            r.cancel(false);
        }
        if (listener != null) {
            listener.close();
        }
        waiters.failAll(new LockUnavailableException("the JDBC lock client was closed"));
    }
}
