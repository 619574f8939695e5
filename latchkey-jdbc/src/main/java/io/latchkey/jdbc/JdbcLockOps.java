package io.latchkey.jdbc;

import io.latchkey.LockHolder;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the lease-table lock: one row per held lock name, decided by single statements on the
 * database's clock ({@link LeaseTableRows}, {@link LeaseTableSql}). Releasing deletes the row; every
 * {@value #REAP_INTERVAL_SECONDS} s (at a random phase) the client deletes expired rows on its I/O pool.
 *
 * <p>An attempt is one conditional statement ({@link LeaseTableRows#tryAcquire}); the engine does the waiting. A busy
 * attempt answers when to look again: on PostgreSQL, where releases are pushed ({@link #subscribe}: {@code NOTIFY}
 * through the client's {@link Wakeups}, which the counted primitives share), the holder's remaining lease capped at a
 * second (a fallback for a lost notification); elsewhere, and behind a transaction pooler without a listen URL, the
 * engine's back-off from {@value #MIN_POLL_MILLIS} ms ({@link Attempt#withBackoff}: growing with the time the waiter
 * has waited) up to {@link JdbcOptions#maxPollInterval()}, or with short polling up to
 * {@value #SHORT_POLL_STEP_MILLIS} ms per name the client waits for; never past the holder's remaining lease. A
 * release or forced unlock by this client wakes its own waiters at once where nothing is pushed.
 */
final class JdbcLockOps implements RemoteLockOps {

    /** How often each client deletes expired rows ({@link #reapExpired}). */
    static final long REAP_INTERVAL_SECONDS = 60;
    /** With notifications: the longest re-check hint, the fallback for a lost one. */
    static final long PUSHED_RECHECK_MILLIS = 1_000;
    /** Without notifications: the first re-check hint. */
    static final long MIN_POLL_MILLIS = 2;
    /** Short polling: each waiting name of the client adds this much to the longest re-check hint. */
    static final long SHORT_POLL_STEP_MILLIS = 20;

    private final JdbcRunner runner;
    private final LeaseTableSql sql;
    private final LeaseTableRows rows;
    private final Wakeups wakeups;
    private final long maxPollMillis;
    private final boolean shortPoll;
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
     * @param shortPoll whether polling keeps the re-check hints short: at most {@value #SHORT_POLL_STEP_MILLIS} ms per
     *        name this client waits for (and at most the poll interval), so that one waiter re-checks about every
     *        20 ms and the client's polling stays near 50 statements a second however many names it waits for
     */
    JdbcLockOps(JdbcRunner runner, LeaseTableSql sql, String namespace, TimeSource time, long maxPollMillis,
                String threadPrefix, Wakeups.Connections listenOn, boolean shortPoll) {
        this.runner = runner;
        this.sql = sql;
        this.maxPollMillis = maxPollMillis;
        this.shortPoll = shortPoll;
        String channel = channelOf(sql.table);
        this.rows = new LeaseTableRows(runner, sql, namespace, time, channel);
        this.wakeups = new Wakeups(channel, listenOn, threadPrefix + "-listen");
        this.reaper = runner.every(REAP_INTERVAL_SECONDS, "expired lock rows of " + sql.table, () -> !closed,
                this::reapExpired);
    }

    /** The wake-ups of this client: lock rows' and counted resources' subscribers, on the one listener. */
    Wakeups wakeups() {
        return wakeups;
    }

    /** The NOTIFY channel: the table name (an identifier of at most 63 characters, so a valid channel). */
    static String channelOf(String table) {
        String c = table.toLowerCase(Locale.ROOT);
        return c.length() > 63 ? c.substring(0, 63) : c;
    }

    /** Sets the name this client records with each hold (before the first acquire). */
    void clientName(String clientName) {
        rows.clientName = clientName;
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        if (closed) {
            return CompletableFuture.failedFuture(new LockUnavailableException("the JDBC lock client is closed"));
        }
        String key = rows.key(request.name());
        return runner.async("acquire '" + request.name() + "'", c -> {
            LeaseTableRows.Outcome a = runner.attempt(request.attemptId(), c, x -> rows.tryAcquire(x, key, request));
            if (a.token() >= 0) {
                return Attempt.granted(new Grant(request, a.token(), a.sentAt(), null));
            }
            // retryNow: the row changed between two statements of the attempt; look again after the shortest pause
            return a.retryNow() ? Attempt.busy(TimeUnit.MILLISECONDS.toNanos(1)) : busy(a.holderRemainingMillis());
        });
    }

    /** A busy answer: when to look again at the latest, and how to back off without pushes (see the class comment). */
    private Attempt busy(long holderRemainingMillis) {
        long cap = wakeups.pushes() ? Math.max(PUSHED_RECHECK_MILLIS, maxPollMillis)
                : shortPoll ? Math.min(maxPollMillis, SHORT_POLL_STEP_MILLIS * Math.max(1, wakeups.waitedFor()))
                : maxPollMillis;
        long millis = Math.max(1, Math.min(cap, holderRemainingMillis + 1));
        Attempt busy = Attempt.busy(TimeUnit.MILLISECONDS.toNanos(millis));
        return wakeups.pushes() ? busy : busy.withBackoff(TimeUnit.MILLISECONDS.toNanos(Math.min(MIN_POLL_MILLIS,
                millis)));
    }

    /**
     * Tells {@code changed} of releases, forced unlocks and reclaimed rows of {@code name}: pushed by PostgreSQL's
     * {@code NOTIFY} (complete once {@code LISTEN} is in effect), elsewhere only this client's own changes.
     */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return wakeups.subscribe(rows.key(name), changed);
    }

    /** Runs {@code removal} of row {@code key}; one that removed a row wakes this client's waiters where nothing is pushed. */
    private CompletableFuture<Boolean> remove(String what, String key, SqlWork<Boolean> removal) {
        return runner.async(what, c -> {
            boolean removed = removal.run(c);
            if (removed && !wakeups.pushes()) {
                wakeups.changed(key);
            }
            return removed;
        });
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        String key = rows.key(grant.name());
        return remove("release '" + grant.name() + "'", key, c -> rows.release(c, key, grant));
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        String key = rows.key(name);
        return remove("forceUnlock '" + name + "'", key, c -> rows.forceUnlock(c, key));
    }

    /**
     * Deletes the row an unanswered attempt of {@code request} wrote, by owner and attempt id, and wakes waiters as a
     * release does; a later hold of the owner has another attempt id and stays. The attempt's statements may still
     * run on their connection (the operation timeout ended only the wait for their answer): the clean-up goes after
     * they end, so that it never comes before what it undoes. Without the {@code attempt_id} column (a table of an
     * earlier version, left as it is) it removes nothing: the row ends with its lease.
     */
    @Override
    public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest request) {
        if (!sql.attemptColumn) {
            return CompletableFuture.completedFuture(false);
        }
        String key = rows.key(request.name());
        return runner.afterAttempt(request.attemptId(), () -> remove("clean up attempt " + request.attemptId()
                + " on '" + request.name() + "'", key, c -> rows.cleanUp(c, key, request)));
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
        return runner.async("hand off '" + from.name() + "'",
                c -> runner.attempt(request.attemptId(), c, x -> rows.handOff(x, key, from, request)));
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String key = rows.key(name);
        return runner.async("isLocked '" + name + "'", c -> rows.isLocked(c, key));
    }

    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        String key = rows.key(name);
        return runner.async("holder of '" + name + "'", c -> rows.holder(c, key));
    }

    /**
     * Deletes expired rows (crashed or cut-off holders' rows nobody took over); returns how many. Safe at any time: an
     * expired row's holder has lost it by the database's clock (its renewal and release match the row by token and
     * find nothing), and the next holder of the name takes a new token from the sequence either way.
     */
    long reapExpired() {
        return runner.call("reclaim expired rows of " + sql.table, c -> {
            long total = rows.reapExpired(c);
            if (total > 0 && !wakeups.pushes()) {
                wakeups.changedAll();
            }
            return total;
        });
    }

    void close() {
        closed = true;
        if (reaper != null) {
            reaper.cancel(false);
        }
        wakeups.close();
    }
}
