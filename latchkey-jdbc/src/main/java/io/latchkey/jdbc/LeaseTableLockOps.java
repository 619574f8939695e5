package io.latchkey.jdbc;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the lease-table lock: one row per held lock name, decided by single statements on the
 * database's clock (see {@link LeaseTableSql}). Releasing deletes the row; every
 * {@value #REAP_INTERVAL_SECONDS} s (at a random phase) the client deletes expired rows on its I/O pool.
 *
 * <p>Waiting: a busy acquire parks no thread. Its waiter re-checks when PostgreSQL notifies a release of its
 * name (through the client's one {@link PgReleaseListener}), and otherwise after a bounded pause: on PostgreSQL
 * the holder's remaining lease capped at a second (a fallback for a lost notification), elsewhere a backoff from
 * 2 ms up to {@link JdbcOptions#maxPollInterval()}, never past the holder's remaining lease or the deadline.
 */
final class LeaseTableLockOps implements RemoteLockOps {

    private static final Logger log = LoggerFactory.getLogger(LeaseTableLockOps.class);
    private static final int RENEW_CHUNK = 300;
    private static final long PG_FALLBACK_MILLIS = 1_000;
    /** How often each client deletes expired rows ({@link #reapExpired}). */
    static final long REAP_INTERVAL_SECONDS = 60;

    private final JdbcRunner runner;
    private final LeaseTableSql sql;
    private final String namespace;
    private final TimeSource time;
    private final long maxPollMillis;
    private final PgReleaseListener listener;
    private final String channel;
    private final Map<String, Set<Waiter>> waiters = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final ScheduledFuture<?> reaper;

    LeaseTableLockOps(JdbcRunner runner, LeaseTableSql sql, String namespace, TimeSource time, long maxPollMillis,
                      String threadPrefix) {
        this.runner = runner;
        this.sql = sql;
        this.namespace = namespace;
        this.time = time;
        this.maxPollMillis = maxPollMillis;
        this.channel = channelOf(sql.table);
        this.listener = sql.dialect == SqlDialect.POSTGRESQL
                ? new PgReleaseListener(runner.dataSource(), channel, threadPrefix + "-listen", this::released,
                        this::wakeAll)
                : null;
        if (listener != null) {
            // Listening from the start: the first waiter then needs no connection set-up before it can be woken.
            listener.start();
        }
        // Every client reclaims, at a random phase so that many clients spread their statements out.
        long first = java.util.concurrent.ThreadLocalRandom.current().nextLong(1, REAP_INTERVAL_SECONDS * 1000);
        ScheduledFuture<?> r;
        try {
            r = runner.timer().scheduleWithFixedDelay(this::reapQuietly, first, REAP_INTERVAL_SECONDS * 1000,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            r = null;
        }
        this.reaper = r;
    }

    /** The NOTIFY channel: the table name (an identifier of at most 63 characters, so a valid channel). */
    static String channelOf(String table) {
        String c = table.toLowerCase(java.util.Locale.ROOT);
        return c.length() > 63 ? c.substring(0, 63) : c;
    }

    /**
     * The row key of {@code name}: the name itself without a namespace, else namespace, U+001F, name. Neither may
     * contain control characters, so no name of one namespace can equal a key of another ({@code "a/" + "x"} is
     * not {@code "" + "a/x"}); U+001F rather than NUL because PostgreSQL text cannot hold NUL.
     */
    private String key(String name) {
        return namespace.isEmpty() ? name : namespace + '\u001f' + name;
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public CompletableFuture<Grant> acquire(AcquireRequest request) {
        Waiter w = new Waiter(request, key(request.name()));
        if (closed) {
            return CompletableFuture.failedFuture(new LockUnavailableException("the JDBC lock client is closed"));
        }
        waiters.computeIfAbsent(w.key, k -> ConcurrentHashMap.newKeySet()).add(w);
        request.cancelled().thenRun(() -> finish(w, null, null));
        wake(w);
        return w.result;
    }

    private void released(String key) {
        Set<Waiter> ws = waiters.get(key);
        if (ws != null) {
            ws.forEach(this::wake);
        }
    }

    private void wakeAll() {
        waiters.values().forEach(ws -> ws.forEach(this::wake));
    }

    private void wake(Waiter w) {
        w.dirty = true;
        if (w.result.isDone() || !w.running.compareAndSet(false, true)) {
            return;
        }
        ScheduledFuture<?> t = w.timer;
        if (t != null) {
            t.cancel(false);
        }
        try {
            runner.io().execute(() -> attempt(w));
        } catch (RejectedExecutionException e) {
            finish(w, null, new LockUnavailableException("the JDBC lock client is closed", e));
        }
    }

    private void attempt(Waiter w) {
        w.dirty = false;
        AcquireRequest req = w.request;
        if (w.result.isDone() || req.isCancelled()) {
            finish(w, null, null);
            return;
        }
        Attempt a;
        try {
            a = runner.call("acquire '" + req.name() + "'", c -> tryOnce(c, w));
        } catch (RuntimeException e) {
            finish(w, null, e);
            return;
        }
        if (a.token >= 0) {
            Grant g = new Grant(req, a.token, a.sentAt, null);
            if (!finish(w, g, null)) {
                release(g); // abandoned meanwhile: give the lock back rather than let it expire
            }
            return;
        }
        if (req.isExpired() || req.isCancelled()) {
            finish(w, null, null);
            return;
        }
        w.running.set(false);
        if (w.dirty || a.retryNow) {
            wake(w);
        } else {
            schedule(w, a.holderRemainingMillis);
        }
    }

    private void schedule(Waiter w, long holderRemainingMillis) {
        long delay;
        if (listener != null) {
            if (!w.listenerStarted) {
                w.listenerStarted = true;
                // A release between our attempt and LISTEN taking effect would be missed: re-check once it is on.
                listener.start().whenComplete((v, t) -> wake(w));
            }
            delay = Math.min(Math.max(PG_FALLBACK_MILLIS, maxPollMillis), holderRemainingMillis + 1);
        } else {
            delay = Math.min(w.backoffMillis, holderRemainingMillis + 1);
            w.backoffMillis = Math.min(w.backoffMillis * 2, maxPollMillis);
        }
        long remaining = w.request.remainingNanos();
        if (remaining != Long.MAX_VALUE) {
            delay = Math.min(delay, TimeUnit.NANOSECONDS.toMillis(remaining) + 1);
        }
        delay = Math.max(1, delay);
        try {
            w.timer = runner.timer().schedule(() -> wake(w), delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            finish(w, null, new LockUnavailableException("the JDBC lock client is closed", e));
        }
    }

    /** Completes the waiter; returns {@code false} if it was already complete. */
    private boolean finish(Waiter w, Grant grant, Throwable error) {
        Set<Waiter> ws = waiters.get(w.key);
        if (ws != null) {
            ws.remove(w);
            if (ws.isEmpty()) {
                waiters.computeIfPresent(w.key, (k, v) -> v.isEmpty() ? null : v);
            }
        }
        ScheduledFuture<?> t = w.timer;
        if (t != null) {
            t.cancel(false);
        }
        return error != null ? w.result.completeExceptionally(error) : w.result.complete(grant);
    }

    private Attempt tryOnce(Connection c, Waiter w) throws SQLException {
        AcquireRequest req = w.request;
        long sentAt = time.nanoTime();
        try {
            if (sql.dialect == SqlDialect.POSTGRESQL) {
                try (PreparedStatement ps = c.prepareStatement(sql.acquire)) {
                    runner.limit(ps);
                    ps.setString(1, w.key);
                    ps.setString(2, req.ownerId());
                    ps.setLong(3, req.leaseMillis());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            return Attempt.acquired(rs.getLong(1), sentAt);
                        }
                    }
                }
                return busy(c, w);
            }
            try (PreparedStatement ps = c.prepareStatement(sql.acquire)) {
                runner.limit(ps);
                ps.setString(1, w.key);
                ps.setString(2, req.ownerId());
                ps.setLong(3, req.leaseMillis());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(sql.state)) {
                runner.limit(ps);
                ps.setString(1, w.key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Attempt.busy(0, true);
                    }
                    if (req.ownerId().equals(rs.getString(1)) && rs.getLong(3) > 0) {
                        return Attempt.acquired(rs.getLong(2), sentAt);
                    }
                    return Attempt.busy(Math.max(0, rs.getLong(3)), false);
                }
            }
        } catch (SQLException e) {
            String state = e.getSQLState();
            // Two first acquires of a new name racing on MERGE (H2), or a deadlock victim (InnoDB): try again.
            if (state != null && (state.startsWith("23") || state.startsWith("40"))) {
                log.debug("acquire of {} raced ({}), retrying", w.key, state);
                return Attempt.busy(0, true);
            }
            throw e;
        }
    }

    private Attempt busy(Connection c, Waiter w) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.markWaiting)) {
            runner.limit(ps);
            ps.setString(1, w.key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return Attempt.busy(Math.max(0, rs.getLong(3)), false);
                }
                return Attempt.busy(0, true);
            }
        }
    }

    // ---------------------------------------------------------------- release, renew, hand-off

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        String key = key(grant.name());
        return runner.async("release '" + grant.name() + "'", c -> {
            boolean released;
            try (PreparedStatement ps = c.prepareStatement(sql.release)) {
                runner.limit(ps);
                ps.setString(1, key);
                ps.setString(2, grant.ownerId());
                ps.setLong(3, grant.fencingToken());
                if (sql.dialect == SqlDialect.POSTGRESQL) {
                    ps.setString(4, channel);
                    try (ResultSet rs = ps.executeQuery()) {
                        released = rs.next() && rs.getBoolean(1);
                    }
                } else {
                    released = ps.executeUpdate() > 0;
                }
            }
            if (!released && sql.releaseExpired != null) {
                // Our lease ran out and nobody took the row over: delete it anyway, it must not stay behind.
                try (PreparedStatement ps = c.prepareStatement(sql.releaseExpired)) {
                    runner.limit(ps);
                    ps.setString(1, key);
                    ps.setString(2, grant.ownerId());
                    ps.setLong(3, grant.fencingToken());
                    ps.executeUpdate();
                }
            }
            if (released && listener == null) {
                released(key); // no notifications here: at least this client's waiters need not wait for a poll
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
        return runner.async("renew " + all.size() + " lock(s)", c -> {
            Set<Grant> lost = new HashSet<>(all);
            for (int from = 0; from < all.size(); from += RENEW_CHUNK) {
                List<Grant> chunk = all.subList(from, Math.min(all.size(), from + RENEW_CHUNK));
                if (sql.dialect == SqlDialect.POSTGRESQL) {
                    renewPostgres(c, chunk, lost);
                } else {
                    renewGeneric(c, chunk, lost);
                }
            }
            return lost;
        });
    }

    private void renewPostgres(Connection c, List<Grant> chunk, Set<Grant> lost) throws SQLException {
        int n = chunk.size();
        String[] names = new String[n];
        String[] owners = new String[n];
        Long[] tokens = new Long[n];
        Long[] leases = new Long[n];
        Map<String, Grant> byKey = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Grant g = chunk.get(i);
            names[i] = key(g.name());
            owners[i] = g.ownerId();
            tokens[i] = g.fencingToken();
            leases[i] = g.leaseMillis();
            byKey.put(names[i] + '\u0000' + owners[i] + '\u0000' + tokens[i], g);
        }
        try (PreparedStatement ps = c.prepareStatement(sql.renewPostgres())) {
            runner.limit(ps);
            Array a1 = c.createArrayOf("text", names);
            Array a2 = c.createArrayOf("text", owners);
            Array a3 = c.createArrayOf("bigint", tokens);
            Array a4 = c.createArrayOf("bigint", leases);
            ps.setArray(1, a1);
            ps.setArray(2, a2);
            ps.setArray(3, a3);
            ps.setArray(4, a4);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Grant g = byKey.get(rs.getString(1) + '\u0000' + rs.getString(2) + '\u0000' + rs.getLong(3));
                    if (g != null) {
                        lost.remove(g);
                    }
                }
            }
        }
    }

    private void renewGeneric(Connection c, List<Grant> chunk, Set<Grant> lost) throws SQLException {
        Map<Long, List<Grant>> byLease = new LinkedHashMap<>();
        for (Grant g : chunk) {
            byLease.computeIfAbsent(g.leaseMillis(), k -> new ArrayList<>()).add(g);
        }
        for (Map.Entry<Long, List<Grant>> e : byLease.entrySet()) {
            List<Grant> gs = e.getValue();
            int updated;
            try (PreparedStatement ps = c.prepareStatement(sql.renewBatch(gs.size()))) {
                runner.limit(ps);
                ps.setLong(1, e.getKey());
                bindTriples(ps, bindNames(ps, 2, gs), gs);
                updated = ps.executeUpdate();
            }
            if (updated == gs.size()) {
                lost.removeAll(gs);
                continue;
            }
            // Some were lost: one more read tells which (only when something went wrong).
            Map<String, Grant> byKey = new HashMap<>();
            for (Grant g : gs) {
                byKey.put(key(g.name()) + '\u0000' + g.ownerId() + '\u0000' + g.fencingToken(), g);
            }
            try (PreparedStatement ps = c.prepareStatement(sql.stillHeld(gs.size()))) {
                runner.limit(ps);
                bindTriples(ps, bindNames(ps, 1, gs), gs);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Grant g = byKey.get(rs.getString(1) + '\u0000' + rs.getString(2) + '\u0000' + rs.getLong(3));
                        if (g != null) {
                            lost.remove(g);
                        }
                    }
                }
            }
        }
    }

    /** Binds the grants' row keys from {@code first}; returns the next parameter index. */
    private int bindNames(PreparedStatement ps, int first, List<Grant> gs) throws SQLException {
        int i = first;
        for (Grant g : gs) {
            ps.setString(i++, key(g.name()));
        }
        return i;
    }

    private void bindTriples(PreparedStatement ps, int first, List<Grant> gs) throws SQLException {
        int i = first;
        for (Grant g : gs) {
            ps.setString(i++, key(g.name()));
            ps.setString(i++, g.ownerId());
            ps.setLong(i++, g.fencingToken());
        }
    }

    @Override
    public boolean supportsHandOff() {
        return true;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        String key = key(from.name());
        return runner.async("hand off '" + from.name() + "'", c -> {
            long sentAt = time.nanoTime();
            if (sql.dialect == SqlDialect.POSTGRESQL) {
                try (PreparedStatement ps = c.prepareStatement(sql.handOff)) {
                    runner.limit(ps);
                    ps.setString(1, request.ownerId());
                    ps.setLong(2, request.leaseMillis());
                    ps.setString(3, key);
                    ps.setString(4, from.ownerId());
                    ps.setLong(5, from.fencingToken());
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? new Grant(request, rs.getLong(1), sentAt, null) : null;
                    }
                }
            }
            // A new token from the sequence, not token + 1: the next holder after this row's deletion takes the
            // sequence's next value, which must be above this one.
            long token;
            try (PreparedStatement ps = c.prepareStatement(sql.nextTokenQuery); ResultSet rs = ps.executeQuery()) {
                rs.next();
                token = rs.getLong(1);
            }
            try (PreparedStatement ps = c.prepareStatement(sql.handOff)) {
                runner.limit(ps);
                ps.setString(1, request.ownerId());
                ps.setLong(2, token);
                ps.setLong(3, request.leaseMillis());
                ps.setString(4, key);
                ps.setString(5, from.ownerId());
                ps.setLong(6, from.fencingToken());
                return ps.executeUpdate() == 1 ? new Grant(request, token, sentAt, null) : null;
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String key = key(name);
        return runner.async("isLocked '" + name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.isLocked)) {
                runner.limit(ps);
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getLong(1) > 0;
                }
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        String key = key(name);
        return runner.async("forceUnlock '" + name + "'", c -> {
            boolean released;
            try (PreparedStatement ps = c.prepareStatement(sql.forceUnlock)) {
                runner.limit(ps);
                ps.setString(1, key);
                if (sql.dialect == SqlDialect.POSTGRESQL) {
                    ps.setString(2, channel);
                    try (ResultSet rs = ps.executeQuery()) {
                        released = rs.next() && rs.getBoolean(1);
                    }
                } else {
                    released = ps.executeUpdate() > 0;
                }
            }
            if (!released && sql.forceUnlockExpired != null) {
                try (PreparedStatement ps = c.prepareStatement(sql.forceUnlockExpired)) {
                    runner.limit(ps);
                    ps.setString(1, key);
                    ps.executeUpdate();
                }
            }
            if (released && listener == null) {
                released(key);
            }
            return released;
        });
    }

    /** Who holds {@code name} now (owner, token, remaining lease on the database clock, since when); null if free. */
    @Override
    public CompletableFuture<String> describeHolder(String name) {
        String key = key(name);
        return runner.async("describe '" + name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.stateWithAge)) {
                runner.limit(ps);
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getString(1) != null && rs.getLong(3) > 0) {
                        return String.format("owner %s, token %d, expires in %d ms, held for %d ms", rs.getString(1),
                                rs.getLong(2), rs.getLong(3), rs.getLong(4));
                    }
                    return null;
                }
            }
        });
    }

    /**
     * Deletes expired rows (crashed or cut-off holders' rows nobody took over), in batches of
     * {@value LeaseTableSql#REAP_BATCH} until none is left or the statement deleted fewer; returns how many. Safe at
     * any time: an expired row's holder has lost it by the database's clock (its renewal and release match the row
     * by token and find nothing), and the next holder of the name takes a new token from the sequence either way.
     */
    long reapExpired() {
        return runner.call("reclaim expired rows of " + sql.table, c -> {
            long total = 0;
            for (int round = 0; round < 100; round++) {
                int n;
                try (PreparedStatement ps = c.prepareStatement(sql.reap)) {
                    runner.limit(ps);
                    if (sql.dialect == SqlDialect.POSTGRESQL) {
                        ps.setString(1, channel);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            n = rs.getInt(1);
                        }
                    } else {
                        n = ps.executeUpdate();
                    }
                }
                total += n;
                if (n < LeaseTableSql.REAP_BATCH) {
                    break;
                }
            }
            if (total > 0 && listener == null) {
                wakeAll();
            }
            return total;
        });
    }

    private void reapQuietly() {
        if (closed) {
            return;
        }
        try {
            runner.io().execute(() -> {
                try {
                    long n = reapExpired();
                    if (n > 0) {
                        log.debug("reclaimed {} expired lock row(s) of {}", n, sql.table);
                    }
                } catch (RuntimeException e) {
                    log.debug("reclaiming expired rows of {} failed: {}", sql.table, e.toString());
                }
            });
        } catch (RejectedExecutionException e) {
            // closing
        }
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
        LockUnavailableException closing = new LockUnavailableException("the JDBC lock client was closed");
        waiters.values().forEach(ws -> ws.forEach(w -> finish(w, null, closing)));
    }

    /** One pending acquire. */
    private static final class Waiter {
        final AcquireRequest request;
        final String key;
        final CompletableFuture<Grant> result = new CompletableFuture<>();
        final AtomicBoolean running = new AtomicBoolean();
        volatile boolean dirty;
        volatile ScheduledFuture<?> timer;
        volatile long backoffMillis = 2;
        volatile boolean listenerStarted;

        Waiter(AcquireRequest request, String key) {
            this.request = request;
            this.key = key;
        }
    }

    /** The outcome of one acquire statement. */
    private static final class Attempt {
        final long token;
        final long sentAt;
        final long holderRemainingMillis;
        final boolean retryNow;

        private Attempt(long token, long sentAt, long holderRemainingMillis, boolean retryNow) {
            this.token = token;
            this.sentAt = sentAt;
            this.holderRemainingMillis = holderRemainingMillis;
            this.retryNow = retryNow;
        }

        static Attempt acquired(long token, long sentAt) {
            return new Attempt(token, sentAt, 0, false);
        }

        static Attempt busy(long holderRemainingMillis, boolean retryNow) {
            return new Attempt(-1, 0, holderRemainingMillis, retryNow);
        }
    }
}
