package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the advisory-lock mode ({@link JdbcAdvisoryLockClient} describes the locks, keys and tokens): a
 * session-level advisory lock on a connection dedicated to the hold, borrowed when the lock is taken and given back
 * after it is released. A waiting acquire blocks one thread of the waiter pool in the database's own queue, ended by
 * the database's own timeout at its deadline and cancelled ({@code Statement.cancel}) only when abandoned.
 *
 * <p>This is the one lock ops of the backend that waits itself ({@link #acquire}) rather than answering single
 * attempts: neither database announces an advisory lock's release (a holder whose session dies frees it silently,
 * and MariaDB/MySQL have no notifications at all), so single attempts ({@code pg_try_advisory_lock},
 * {@code GET_LOCK(name, 0)}) would need a poll every few milliseconds per waiting name, and would lose the database's
 * queue of waiters (its order, its immediate wake-up). Blocking one statement per waiter keeps both.
 *
 * <p>Fencing tokens ({@code pg_current_xact_id()}, {@code UUID_SHORT()}) grow across holders because the next holder
 * reads its token after the previous one released. PostgreSQL keys are the first 8 bytes of the row key's SHA-256;
 * MySQL/MariaDB lock names {@code latchkey:} and 48 hex digits of it (at most 64 characters, and no case-insensitive
 * comparison to trip over).
 */
final class JdbcAdvisoryLockOps implements RemoteLockOps {

    private static final Logger log = LoggerFactory.getLogger(JdbcAdvisoryLockOps.class);
    /** The granted advisory lock of a key in {@code pg_locks}, by its two 32-bit halves ({@link #locator}). */
    private static final String PG_HOLDER = " FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1"
            + " AND classid::text::bigint = ? AND objid::text::bigint = ?";

    private final DataSource dataSource;
    private final boolean postgres;
    private final String namespace;
    private final TimeSource time;
    private final JdbcRunner runner;
    private final ExecutorService waiters;

    JdbcAdvisoryLockOps(DataSource dataSource, SqlDialect dialect, String namespace, TimeSource time, JdbcRunner runner,
                    String threadPrefix) {
        this.dataSource = dataSource;
        this.postgres = dialect == SqlDialect.POSTGRESQL;
        this.namespace = namespace;
        this.time = time;
        this.runner = runner;
        this.waiters = Executors.newCachedThreadPool(JdbcRunner.daemons(threadPrefix + "-advisory-wait"));
    }

    /** The advisory-lock key of {@code name}: a {@code Long} on PostgreSQL, a {@code String} on MySQL/MariaDB. */
    private Object key(String name) {
        byte[] h = JdbcFencedStoreOps.sha256(LeaseTableRows.keyPrefix(namespace) + name);
        return postgres ? ByteBuffer.wrap(h).getLong() : "latchkey:" + HexFormat.of().formatHex(h, 0, 24);
    }

    /** Runs a query of one boolean (PostgreSQL) or 1/0 (MySQL) answer. */
    private boolean yes(Connection c, String sql, boolean limited, Object... params) throws SQLException {
        try (PreparedStatement ps = runner.prepare(c, sql, limited, params); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return postgres ? rs.getBoolean(1) : rs.getInt(1) == 1;
        }
    }

    @Override
    public CompletableFuture<Grant> acquire(AcquireRequest request) {
        CompletableFuture<Grant> result = new CompletableFuture<>();
        try {
            waiters.execute(() -> {
                try {
                    Grant g = acquireBlocking(request);
                    if (!result.complete(g) && g != null) {
                        release(g);
                    }
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closed(e));
        }
        return result;
    }

    private static LockUnavailableException closed(RejectedExecutionException e) {
        return new LockUnavailableException("the JDBC advisory lock client is closed", e);
    }

    private Grant acquireBlocking(AcquireRequest request) {
        Connection c;
        try {
            c = dataSource.getConnection();
            c.setAutoCommit(true);
        } catch (SQLException e) {
            throw runner.unavailable("acquire advisory lock '" + request.name() + "'", e);
        }
        boolean keep = false;
        boolean[] cancelFired = {false};
        try {
            boolean got = yes(c, postgres ? "SELECT pg_try_advisory_lock(?)" : "SELECT GET_LOCK(?, 0)", false,
                    key(request.name()));
            while (!got && !request.isExpired() && !request.isCancelled()) {
                // PostgreSQL waits in one statement; GET_LOCK waits at most an hour per statement, then again.
                got = waitFor(c, request, cancelFired);
                if (postgres) {
                    break;
                }
            }
            if (!got) {
                return null;
            }
            // The lease starts when the database granted the lock (it keeps no lease of its own), not when the wait
            // in its queue began: the engine's bound and the end of a fixed lease count from here.
            long grantedAt = time.nanoTime();
            Grant g = new Grant(request, token(c), grantedAt, new AdvisoryGrantState(c, request.name()));
            keep = true;
            return g;
        } catch (SQLException e) {
            throw runner.unavailable("acquire advisory lock '" + request.name() + "'", e);
        } finally {
            if (cancelFired[0] && !keep) {
                retire(c); // the cancel may still be on its way to this database session
            } else if (!keep) {
                closeQuietly(c);
            }
        }
    }

    /**
     * Blocks in the database's own queue until granted, the deadline, or cancellation. The deadline is the
     * database's own timeout ({@code GET_LOCK}'s argument, PostgreSQL's {@code lock_timeout} set for this one
     * statement), never a timer-driven {@code Statement.cancel}: a cancel travels out of band and may land on
     * whatever statement the session runs next (a pooled connection's next borrower, even). Cancels are kept for
     * abandonment, and a session one was fired at is never reused (see {@link #retire}).
     */
    private boolean waitFor(Connection c, AcquireRequest request, boolean[] cancelFired) throws SQLException {
        long remainingNanos = request.remainingNanos();
        Object key = key(request.name());
        // PostgreSQL's lock_timeout is transaction-local, and each autocommit statement is its own transaction
        boolean bounded = remainingNanos != Long.MAX_VALUE;
        String sql = !postgres ? "SELECT GET_LOCK(?, ?)" : bounded
                ? "SELECT set_config('lock_timeout', ?, true), pg_advisory_lock(?)" : "SELECT pg_advisory_lock(?)";
        Object[] params = !postgres ? new Object[] {key, Math.min(3600, Math.max(0.001, remainingNanos / 1e9))}
                : bounded ? new Object[] {Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos)) + "ms", key}
                : new Object[] {key};
        try (PreparedStatement ps = runner.prepare(c, sql, false, params)) {
            CompletableFuture<Void> onCancel = request.cancelled().thenRun(() -> {
                cancelFired[0] = true;
                cancel(ps);
            });
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return postgres || rs.getInt(1) == 1;
            } catch (SQLException e) {
                if (postgres && "55P03".equals(e.getSQLState())) {
                    return false; // lock_timeout: the deadline passed in the database's queue
                }
                if (cancelFired[0] || request.isCancelled()) {
                    return false; // our own cancel: the wait ended without the lock
                }
                throw e;
            } finally {
                onCancel.cancel(false);
            }
        }
    }

    private static void cancel(PreparedStatement ps) {
        try {
            ps.cancel();
        } catch (SQLException e) {
            log.debug("cancelling an advisory lock wait failed: {}", e.toString());
        }
    }

    /**
     * Gives back a connection that a cancel was fired at without letting anyone reuse it: the cancel may still be
     * on its way and would interrupt the next borrower's statement.
     */
    private void retire(Connection c) {
        try {
            if (dataSource instanceof HikariDataSource pool) {
                pool.evictConnection(c);
            } else {
                c.abort(Runnable::run);
            }
        } catch (SQLException | RuntimeException e) {
            // the connection is unusable either way
        }
        closeQuietly(c);
    }

    private long token(Connection c) throws SQLException {
        String sql = postgres ? "SELECT pg_current_xact_id()::text::bigint" : "SELECT UUID_SHORT()";
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return postgres ? rs.getLong(1) : rs.getBigDecimal(1).longValue();
        }
    }

    /**
     * The database knows no lease: when the engine finds a fixed lease over, this unlocks on the hold's own session
     * (on an I/O thread: the engine's timer thread must not block) and gives its connection back, unless the hold
     * was released first.
     */
    @Override
    public void leaseEnded(Grant grant) {
        release(grant); // once closing, the client's close ends the session, and the lock with it
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        AdvisoryGrantState held = grant.backendState(AdvisoryGrantState.class);
        try {
            return CompletableFuture.supplyAsync(() -> held.end() && unlockAndClose(held), runner.io());
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(closed(e));
        }
    }

    /** Unlocks on the hold's own session and gives the connection back; {@code false} if the session was gone. */
    private boolean unlockAndClose(AdvisoryGrantState held) {
        held.lock.lock();
        try {
            return yes(held.connection, postgres ? "SELECT pg_advisory_unlock(?)" : "SELECT RELEASE_LOCK(?)", true,
                    key(held.name));
        } catch (SQLException e) {
            retire(held.connection); // the session is gone, and the lock with it: the pool must not reuse it
            return false;
        } finally {
            closeQuietly(held.connection);
            held.lock.unlock();
        }
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        Set<Grant> all = Set.copyOf(grants);
        return CompletableFuture.supplyAsync(() -> {
            Set<Grant> lost = new HashSet<>();
            for (Grant g : all) {
                AdvisoryGrantState held = g.backendState(AdvisoryGrantState.class);
                held.lock.lock();
                try {
                    // A session-level lock lives exactly as long as its session: a live session still holds it.
                    if (held.ended || !held.connection.isValid(2)) {
                        lost.add(g);
                    }
                } catch (SQLException e) {
                    lost.add(g);
                } finally {
                    held.lock.unlock();
                }
            }
            return lost;
        }, runner.io());
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String sql = postgres ? "SELECT COUNT(*)" + PG_HOLDER
                : "SELECT COUNT(*) FROM (SELECT IS_USED_LOCK(?) AS holder) h WHERE holder IS NOT NULL";
        return runner.async("isLocked '" + name + "'", c -> {
            try (PreparedStatement ps = runner.prepare(c, sql, false, locator(name)); ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        });
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        // An advisory lock belongs to its session: the only way to free it from outside is to end that session.
        String find = postgres ? "SELECT pid" + PG_HOLDER : "SELECT IS_USED_LOCK(?)";
        return runner.async("forceUnlock '" + name + "'", c -> {
            Long session = null;
            try (PreparedStatement ps = runner.prepare(c, find, false, locator(name)); ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long v = rs.getLong(1);
                    session = rs.wasNull() ? null : v;
                }
            }
            if (session == null) {
                return false;
            }
            String kill = postgres ? "SELECT pg_terminate_backend(?)" : "KILL CONNECTION " + session.longValue();
            try (PreparedStatement ps = c.prepareStatement(kill)) {
                if (postgres) {
                    ps.setInt(1, session.intValue());
                }
                ps.execute();
            }
            return true;
        });
    }

    /** How {@code pg_locks} (its two 32-bit halves) or {@code IS_USED_LOCK} finds the key of {@code name}. */
    private Object[] locator(String name) {
        Object k = key(name);
        return postgres ? new Object[] {((Long) k >>> 32) & 0xffffffffL, (Long) k & 0xffffffffL} : new Object[] {k};
    }

    void close() {
        waiters.shutdownNow();
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // nothing to do
        }
    }

    /** One hold: its dedicated session. */
    private static final class AdvisoryGrantState {
        final Connection connection;
        final String name;
        final ReentrantLock lock = new ReentrantLock();
        volatile boolean ended;

        AdvisoryGrantState(Connection connection, String name) {
            this.connection = connection;
            this.name = name;
        }

        /** Marks the hold ended once; {@code false} if it already was (released, or its fixed lease ran out). */
        boolean end() {
            lock.lock();
            try {
                return !ended && (ended = true);
            } finally {
                lock.unlock();
            }
        }
    }
}
