package io.latchkey.jdbc;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import io.latchkey.core.MaintenanceScheduler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs blocking JDBC work off the caller's thread, for the engine's asynchronous SPI: a bounded pool of named
 * daemon I/O threads, periodic clean-ups on the client's {@link MaintenanceScheduler} (which only hands them to the
 * I/O threads), the attempts running now (for their clean-ups), and the mapping of driver errors and slow calls to
 * {@link LockUnavailableException} naming the database and the operation (never the password: the server
 * description is built from the metadata URL with its query string and user info removed).
 */
final class JdbcRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JdbcRunner.class);

    private final DataSource dataSource;
    private final String server;
    private final Duration operationTimeout;
    private final ThreadPoolExecutor io;
    private final MaintenanceScheduler timer;
    private final boolean sessionless;
    /** The attempts whose statements run now, by attempt id: an attempt's clean-up waits for them to end. */
    private final Map<String, CompletableFuture<Void>> running = new ConcurrentHashMap<>();

    /**
     * @param timer the client's scheduler (its one timer thread, shared with the watchdog): timers here only hand
     *        statements to the I/O threads, never run one
     * @param sessionless the connections go through a transaction pooler: PgJDBC's named server-side prepared
     *        statements, which live in a session, are turned off on every connection borrowed
     */
    JdbcRunner(DataSource dataSource, String server, Duration operationTimeout, int ioThreads, String threadPrefix,
               MaintenanceScheduler timer, boolean sessionless) {
        this.sessionless = sessionless;
        this.dataSource = dataSource;
        this.server = server;
        this.operationTimeout = operationTimeout;
        this.io = new ThreadPoolExecutor(ioThreads, ioThreads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemons(threadPrefix + "-io"));
        this.io.allowCoreThreadTimeOut(true);
        this.timer = timer;
    }

    /** Named daemon threads: every thread the backend starts says whose it is. */
    static ThreadFactory daemons(String prefix) {
        AtomicInteger next = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + next.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    DataSource dataSource() {
        return dataSource;
    }

    String server() {
        return server;
    }

    /** The client's scheduler: its tasks hand work to {@link #io()}, they never run a statement themselves. */
    MaintenanceScheduler timer() {
        return timer;
    }

    ExecutorService io() {
        return io;
    }

    /**
     * Every {@code periodSeconds} (the first time at a random point of the first period, so that many clients spread
     * their statements out) runs {@code reap} on an I/O thread while {@code active} says so, logging at debug how
     * many rows it deleted as {@code what}, or why it failed. Stopped by {@link #close()} or by cancelling the
     * returned future; {@code null} if the runner is closed.
     */
    ScheduledFuture<?> every(long periodSeconds, String what, BooleanSupplier active, LongSupplier reap) {
        long first = ThreadLocalRandom.current().nextLong(1, periodSeconds * 1000);
        Runnable task = () -> {
            if (!active.getAsBoolean() || isClosed()) {
                return;
            }
            try {
                io.execute(() -> {
                    try {
                        long n = reap.getAsLong();
                        if (n > 0) {
                            log.debug("deleted {} {}", n, what);
                        }
                    } catch (RuntimeException e) {
                        log.debug("deleting {} failed: {}", what, e.toString());
                    }
                });
            } catch (RejectedExecutionException e) {
                // closing
            }
        };
        try {
            return timer.scheduleWithFixedDelay(task, first, periodSeconds * 1000, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** Whether {@link #close()} was called: no more work is accepted. */
    boolean isClosed() {
        return io.isShutdown();
    }

    /**
     * Runs {@code work} on a pooled connection on an I/O thread; fails with {@link LockUnavailableException} on a
     * driver error or when it takes longer than the operation timeout.
     */
    <T> CompletableFuture<T> async(String operation, SqlWork<T> work) {
        CompletableFuture<T> result;
        try {
            // skipped if it timed out before an I/O thread took it
            result = CompletableFuture.supplyAsync(() -> call(operation, work), io);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new LockUnavailableException(
                    String.format("%s on %s: the client is closed", operation, server), e));
        }
        return result.orTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(t -> {
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            if (cause instanceof TimeoutException) {
                return CompletableFuture.failedFuture(new LockUnavailableException(String.format(
                        "%s on %s did not answer within the operation timeout %s", operation, server,
                        operationTimeout), cause));
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /** Runs {@code work} of attempt {@code id} on {@code c}, known to {@link #afterAttempt} while it runs. */
    <T> T attempt(String id, Connection c, SqlWork<T> work) throws SQLException {
        CompletableFuture<Void> ran = new CompletableFuture<>();
        running.put(id, ran);
        try {
            return work.run(c);
        } finally {
            running.remove(id, ran);
            ran.complete(null);
        }
    }

    /** Runs {@code next} once the statements of attempt {@code id} ended: at once if none run. */
    <T> CompletableFuture<T> afterAttempt(String id, Supplier<CompletableFuture<T>> next) {
        CompletableFuture<Void> ran = running.get(id);
        return ran == null ? next.get() : ran.thenCompose(v -> next.get());
    }

    /** Runs {@code work} on the calling thread on a pooled connection, mapping driver errors. */
    <T> T call(String operation, SqlWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            if (sessionless) {
                c.unwrap(org.postgresql.PGConnection.class).setPrepareThreshold(0);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw unavailable(operation, e);
        }
    }

    /**
     * Runs {@code reap} on {@code c} until it deletes fewer than {@code batch} rows (at most 100 times); returns how
     * many it deleted.
     */
    static long inBatches(Connection c, int batch, SqlWork<? extends Number> reap) throws SQLException {
        long total = 0;
        for (int round = 0; round < 100; round++) {
            long n = reap.run(c).longValue();
            total += n;
            if (n < batch) {
                break;
            }
        }
        return total;
    }

    LockUnavailableException unavailable(String operation, SQLException e) {
        return ConnectFailures.unavailable(server, operation + " (SQLState " + e.getSQLState() + ")", e);
    }

    /** Applies the operation timeout to a statement (the driver's granularity is a second). */
    void limit(Statement statement) throws SQLException {
        statement.setQueryTimeout((int) Math.max(1, (operationTimeout.toMillis() + 999) / 1000));
    }

    /** Prepares {@code statement} under the operation timeout, {@code params} bound in order. */
    PreparedStatement prepare(Connection c, String statement, Object... params) throws SQLException {
        return prepare(c, statement, true, params);
    }

    /** Prepares {@code statement}, under the operation timeout if {@code limited}, {@code params} bound in order. */
    PreparedStatement prepare(Connection c, String statement, boolean limited, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        try {
            if (limited) {
                limit(ps);
            }
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /** Runs an update with {@code params} bound in order; returns the rows it changed. */
    int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params)) {
            return ps.executeUpdate();
        }
    }

    /** Runs a query with {@code params} bound in order; its first row's first column, {@code null} if no row. */
    Long queryLong(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : null;
        }
    }

    @Override
    public void close() {
        io.shutdown();
        try {
            if (!io.awaitTermination(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                io.shutdownNow();
            }
        } catch (InterruptedException e) {
            io.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
