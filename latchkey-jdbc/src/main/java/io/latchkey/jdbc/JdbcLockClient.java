package io.latchkey.jdbc;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.Recipes;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A {@link io.latchkey.LockClient} whose locks are rows of a lease table in a SQL database (PostgreSQL,
 * MariaDB/MySQL or H2), shared by every client that uses the same table.
 *
 * <pre>{@code
 * try (LockClient client = JdbcLockClient.create(dataSource)) {
 *     DistributedLock lock = client.lock("invoice:2026-11");
 *     try (LockLease lease = lock.acquire()) {
 *         invoices.write(batch, lease.fencingToken());
 *     }
 * }
 * }</pre>
 *
 * <h2>The table</h2>
 * One row per lock name ({@link JdbcOptions#tableName()}, {@value JdbcOptions#DEFAULT_TABLE} by default):
 * {@code owner}, {@code hold_count}, fencing {@code token}, {@code expires_at} and {@code acquired_at} in epoch
 * milliseconds of the <em>database's</em> clock. Acquire, release, renewal and hand-off are each one statement
 * that decides against that clock, so clients with skewed clocks never both hold a lock. A row exists only while
 * its lock is held: releasing the last hold deletes it, and each client reclaims expired rows (a crashed holder's)
 * every 60 s, so the table holds what is held, not every name ever
 * used.
 *
 * <h2>Fencing tokens</h2>
 * Every free-to-held transition (and hand-off) takes the next value of the table's sequence {@code <table>_token}:
 * tokens grow strictly per name and across names, survive the deletion of rows and restarts of the database (a
 * sequence is durable and never hands a value out twice, even after a crash), and no two acquisitions wait for each
 * other to get one. The sequence starts at the database's clock in epoch microseconds, so a sequence created again
 * after all lock state was lost (dropped schema, new database) still starts above every token issued before, as long
 * as fewer than a million tokens per second were issued on average. What a sequence does not survive is a restore
 * of the database from a backup older than the last token: see {@code docs/fencing.md}. The table and the sequence
 * are created (or an older table upgraded) on first use unless {@link JdbcOptions#createTable()} is off; the DDL of
 * each dialect is {@link SqlDialect#lockTableDdl(String)} and {@link SqlDialect#tokenSequenceDdl(String)}. Needs
 * sequences: PostgreSQL, MariaDB 10.3 or later, H2; MySQL has none.
 *
 * <h2>Leases, renewal and loss</h2>
 * A lock without a lease time is renewed by the client's watchdog: one statement renews every lock the client
 * holds and reports the ones it no longer holds (expired, force-unlocked), which are then lost.
 *
 * <h2>Waiting</h2>
 * On PostgreSQL a release sends {@code NOTIFY} on the table's channel and the client's single listener
 * connection (a daemon thread named {@code latchkey-jdbc-…-listen}, stopped by {@link #close()}) wakes the
 * waiter of that name, with a re-check after at most a second as a fallback. On MariaDB, MySQL and H2 waiters
 * re-check with a backoff from 2 ms to {@link JdbcOptions#maxPollInterval()}, never sleeping past the holder's
 * remaining lease. Threads of one JVM waiting on one name share one remote waiter.
 *
 * <h2>Connection poolers</h2>
 * Behind a pooler in transaction mode (PgBouncer's {@code pool_mode = transaction}) no session survives a
 * transaction, so {@code LISTEN} on the data source hears nothing. {@link JdbcOptions#pooling()} detects this when
 * the client is created (or is told), the listener then connects to {@link JdbcOptions#listenUrl()} (a direct URL)
 * when one is set, and waiters poll with a short backoff (20 ms per waiting name, at most
 * {@link JdbcOptions#maxPollInterval()}) otherwise; PgJDBC's server-side prepared statements are turned off on each
 * borrowed connection. See {@link #sessionless()}.
 *
 * <h2>Semaphores, permit-expirable semaphores, count-down latches</h2>
 * Beside the lease table, in {@code <table>_counts} (a semaphore's free permits, a permit-expirable semaphore's
 * total, an armed latch's count: one row each) and {@code <table>_permits} (one row per leased permit, its lease on
 * the database's clock, its fencing token from the table's sequence; and a short-lived record of each semaphore take,
 * so that a take whose answer was lost is given back once), created the first time one of these primitives is used
 * ({@link SqlDialect#countTableDdl(String)}, {@link SqlDialect#permitTableDdl(String)}). Each decision is one
 * conditional statement or one short transaction. Other clients' changes wake waiters through {@code NOTIFY} on
 * PostgreSQL and a re-check every {@link JdbcOptions#maxPollInterval()} elsewhere; a leased permit's end wakes them at
 * the earliest lease end read. A latch's row is deleted when it opens; ended permits and take records by a reaper.
 *
 * <h2>Connections</h2>
 * Each operation borrows a connection from the {@link DataSource} for one statement (an acquire on MariaDB/MySQL
 * and H2, or a busy one on PostgreSQL, runs a second statement on it to read the row); no connection is held
 * while a lock is held or awaited, except PostgreSQL's one listener connection per client.
 * {@link #close()} closes the data source only if the client created it (from a {@code jdbc:} URI).
 */
public final class JdbcLockClient extends AbstractLockClient implements LockInspector {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcLockClient.class);

    private final SqlDialect dialect;
    private final String tableName;
    private final JdbcRunner runner;
    private final JdbcLockOps ops;
    private final JdbcInspector inspector;
    private final AutoCloseable ownedDataSource;
    private final JdbcCountOps.Tables counted;
    private final JdbcFencedStoreOps fencedStoreOps;
    private final boolean sessionless;

    private JdbcLockClient(DataSource dataSource, ClientOptions options, JdbcOptions jdbcOptions,
                           AutoCloseable ownedDataSource) {
        super("jdbc", options, TimeSource.SYSTEM);
        this.ownedDataSource = ownedDataSource;
        this.tableName = jdbcOptions.tableName();
        String threadPrefix = "latchkey-jdbc-" + clientId().substring(0, 8);
        Detected d = detect(dataSource, jdbcOptions);
        this.dialect = d.dialect();
        this.sessionless = d.sessionless();
        this.runner = new JdbcRunner(dataSource, d.server(), options.operationTimeout(), jdbcOptions.ioThreads(),
                threadPrefix, scheduler(), d.sessionless() && dialect == SqlDialect.POSTGRESQL);
        LeaseTableSql sql = new LeaseTableSql(dialect, tableName);
        try {
            boolean clientColumn = LeaseTableSchema.ensure(runner, sql, jdbcOptions.createTable());
            boolean attemptColumn = LeaseTableSchema.ensureAttemptColumn(runner, sql, jdbcOptions.createTable());
            if (!clientColumn || !attemptColumn) {
                // a table of an earlier version, left as it is
                sql = new LeaseTableSql(dialect, tableName, clientColumn, attemptColumn);
            }
        } catch (RuntimeException e) {
            runner.close();
            throw e;
        }
        this.ops = new JdbcLockOps(runner, sql, options.namespace(), time(),
                jdbcOptions.maxPollInterval().toMillis(), threadPrefix, d.listenOn(), d.sessionless());
        ops.clientName(options.clientName());
        CountTableSql countSql = new CountTableSql(dialect, tableName);
        this.inspector = new JdbcInspector(runner, sql, countSql, options.namespace());
        this.counted = new JdbcCountOps.Tables(runner, countSql, new LazyTables(runner, "of the semaphores and latches",
                jdbcOptions.createTable(), new LazyTables.Table(countSql.counts, countSql.probeCounts,
                        dialect.countTableDdl(tableName)), new LazyTables.Table(countSql.permits,
                        countSql.probePermits, dialect.permitTableDdl(tableName))),
                ops.wakeups(), options.namespace(), jdbcOptions.maxPollInterval().toMillis());
        this.fencedStoreOps = new JdbcFencedStoreOps(runner, dialect, tableName, options.namespace(),
                jdbcOptions.createTable());
    }

    /**
     * A client on {@code dataSource} with default options; the lock table {@value JdbcOptions#DEFAULT_TABLE} and its
     * sequence are created if missing. The caller keeps ownership of the data source.
     *
     * @param dataSource where the client borrows its connections; not closed by {@link #close()}
     * @return a client, open until {@link #close()}
     * @throws IllegalArgumentException if the database is not PostgreSQL, MariaDB/MySQL or H2
     * @throws IllegalStateException if the database has no sequences (MySQL)
     * @throws LockUnavailableException if the database cannot be reached or only reads (a standby, read-only)
     */
    public static JdbcLockClient create(DataSource dataSource) {
        return create(dataSource, ClientOptions.defaults(), JdbcOptions.defaults());
    }

    /**
     * A client on {@code dataSource} with the default {@link JdbcOptions}; the caller keeps ownership of the data
     * source.
     *
     * @param dataSource where the client borrows its connections; not closed by {@link #close()}
     * @param options the backend-neutral options (namespace, watchdog and operation timeouts, event listener)
     * @return a client, open until {@link #close()}
     * @throws IllegalArgumentException if the database is not PostgreSQL, MariaDB/MySQL or H2
     * @throws IllegalStateException if the database has no sequences (MySQL)
     * @throws LockUnavailableException if the database cannot be reached or only reads (a standby, read-only)
     */
    public static JdbcLockClient create(DataSource dataSource, ClientOptions options) {
        return create(dataSource, options, JdbcOptions.defaults());
    }

    /**
     * A client on {@code dataSource}; the caller keeps ownership of the data source. Checks (or creates) the lock
     * table and its sequence before returning.
     *
     * @param dataSource where the client borrows its connections; not closed by {@link #close()}
     * @param options the backend-neutral options (namespace, watchdog and operation timeouts, event listener)
     * @param jdbcOptions the table, dialect, polling and I/O threads
     * @return a client, open until {@link #close()}
     * @throws IllegalArgumentException if the database is not PostgreSQL, MariaDB/MySQL or H2
     * @throws IllegalStateException if the lock table or its sequence is missing and
     *         {@link JdbcOptions#createTable()} is off, or the database has no sequences (MySQL)
     * @throws LockUnavailableException if the database cannot be reached or only reads (a standby, read-only)
     * @throws NullPointerException if an argument is null
     */
    public static JdbcLockClient create(DataSource dataSource, ClientOptions options, JdbcOptions jdbcOptions) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(jdbcOptions, "jdbcOptions");
        return new JdbcLockClient(dataSource, options, jdbcOptions, null);
    }

    /**
     * A client on a small connection pool (HikariCP, at most {@code poolSize} connections) for {@code jdbcUrl},
     * such as {@code jdbc:postgresql://db:5432/app?user=app&password=…}; the client owns the pool and closes
     * it. {@code jdbc:mysql:} URLs use MySQL Connector/J when it is on the class path, MariaDB Connector/J
     * otherwise. This is what {@code LockClient.connect("jdbc:…")} calls. A {@code jdbc:postgresql:} URL may carry
     * the client's own parameters, which override {@code jdbcOptions} and are not passed to the driver:
     * {@code latchkey.pooling=detect|session|transaction} ({@link JdbcOptions#pooling()}) and
     * {@code latchkey.listenUrl=} a URL-encoded direct {@code jdbc:postgresql:} URL ({@link JdbcOptions#listenUrl()}).
     *
     * @param jdbcUrl the {@code jdbc:} URL, credentials included
     * @param poolSize the pool's largest number of connections, 2 to 1000
     * @param options the backend-neutral options; the operation timeout is also the pool's connection timeout
     *        (at least 250 ms)
     * @param jdbcOptions the table, dialect, polling and I/O threads
     * @return a client that closes the pool on {@link #close()}
     * @throws IllegalArgumentException if {@code poolSize} is out of range, no driver accepts the URL, a
     *         {@code latchkey.} parameter is unknown or bad, or the database is not supported (the message never
     *         contains the password)
     * @throws IllegalStateException if the lock table or its sequence is missing and
     *         {@link JdbcOptions#createTable()} is off, or the database has no sequences (MySQL)
     * @throws LockUnavailableException if the database cannot be reached or only reads (a standby, read-only)
     */
    public static JdbcLockClient create(String jdbcUrl, int poolSize, ClientOptions options, JdbcOptions jdbcOptions) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(jdbcOptions, "jdbcOptions");
        if (poolSize < 2 || poolSize > 1000) {
            throw new IllegalArgumentException(String.format("poolSize must be between 2 and 1000 but was %d", poolSize));
        }
        JdbcOptions effective = JdbcUrls.applyParams(jdbcUrl, jdbcOptions);
        com.zaxxer.hikari.HikariDataSource pool = JdbcUrls.pool(JdbcUrls.withoutParams(jdbcUrl), poolSize,
                options.operationTimeout());
        try {
            return new JdbcLockClient(pool, options, effective, pool);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * The dialect in use: {@link JdbcOptions#dialect()} if set, otherwise detected from the database when the client
     * was created.
     *
     * @return the dialect
     */
    public SqlDialect dialect() {
        return dialect;
    }

    /**
     * The lock table, as {@link JdbcOptions#tableName()} gave it.
     *
     * @return the table name, optionally schema-qualified
     */
    public String tableName() {
        return tableName;
    }

    /**
     * The DDL of the default lock table in {@code dialect}, for schema tools; same as {@link SqlDialect#lockTableDdl}
     * with {@value JdbcOptions#DEFAULT_TABLE}. The table also needs its sequence:
     * {@link SqlDialect#tokenSequenceDdl(String)}.
     *
     * @param dialect the database's dialect
     * @return a {@code CREATE TABLE IF NOT EXISTS} statement
     */
    public static String ddl(SqlDialect dialect) {
        return dialect.lockTableDdl(JdbcOptions.DEFAULT_TABLE);
    }

    /** The remote halves of the primitives this backend offers (see the class comment). */
    @Override
    protected Recipes recipes() {
        return Recipes.builder()
                .lock(ops)
                .semaphore(new JdbcSemaphoreOps(counted))
                .permitExpirableSemaphore(new JdbcPermitExpirableSemaphoreOps(counted))
                .countDownLatch(new JdbcCountDownLatchOps(counted))
                .fencedStore(fencedStoreOps)
                .build();
    }

    /**
     * The locks of this client's namespace whose lease has not run out by the database's clock, read with one
     * SELECT: owner, hold count and fencing token as the row records them, the remaining lease as the database
     * computes it; waiters are not recorded in the table, so they are empty. Then its semaphores (free permits),
     * armed latches (count) and leased permits (permit id, token, remaining lease), sorted by name with the locks.
     *
     * @throws LockUnavailableException if the database cannot be reached or does not answer within the operation
     *         timeout
     */
    @Override
    public List<LockInfo> list(String pattern) {
        checkOpen();
        List<LockInfo> all = inspector.list(pattern);
        all.sort(java.util.Comparator.comparing(LockInfo::name));
        return all;
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> c = EnumSet.of(Capability.LOCK, Capability.SEMAPHORE, Capability.PERMIT_EXPIRABLE_SEMAPHORE,
                Capability.COUNT_DOWN_LATCH, Capability.INSPECT, Capability.FENCED_STORE);
        if (ops.wakeups().pushes()) {
            c.add(Capability.PUSH_WAKEUP);
        }
        return c;
    }

    @Override
    protected void closeBackend() {
        ops.close();
        runner.close();
        if (ownedDataSource != null) {
            try {
                ownedDataSource.close();
            } catch (Exception e) {
                // Closing a pool only fails for reasons the caller cannot act on; the client is closed anyway.
            }
        }
    }

    /**
     * Whether the client treats its connections as going through a transaction pooler ({@link JdbcOptions#pooling()}
     * said so, or detection found that notifications do not arrive on them): no statement relies on a session, and
     * waiters are woken through {@link JdbcOptions#listenUrl()} when one is set, by short polling otherwise.
     *
     * @return whether the connections are session-less
     */
    public boolean sessionless() {
        return sessionless;
    }

    @Override
    public String toString() {
        return "JdbcLockClient{" + runner.server() + ", dialect=" + dialect + ", table=" + tableName
                + (sessionless ? ", transaction pooler" : "") + ", id=" + clientId() + "}";
    }

    private static Detected detect(DataSource dataSource, JdbcOptions jdbcOptions) {
        SqlDialect dialect;
        String server;
        boolean sessionless;
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            server = JdbcUrls.redact(md.getURL());
            dialect = jdbcOptions.dialect().isPresent() ? jdbcOptions.dialect().get() : SqlDialect.of(md);
            WritableCheck.require(c, dialect, server);
            if (dialect != SqlDialect.POSTGRESQL) {
                if (jdbcOptions.listenUrl().isPresent()) {
                    throw new IllegalArgumentException(String.format("listenUrl is for PostgreSQL (LISTEN), but %s is %s",
                            server, dialect));
                }
                return new Detected(dialect, server, jdbcOptions.pooling() == JdbcOptions.Pooling.TRANSACTION, null);
            }
            sessionless = switch (jdbcOptions.pooling()) {
                case SESSION -> false;
                case TRANSACTION -> true;
                case DETECT -> !SessionProbe.notificationsArrive(c, dataSource, SessionProbe.WAIT);
            };
            if (sessionless && jdbcOptions.pooling() == JdbcOptions.Pooling.DETECT) {
                log.info("{}: notifications do not arrive on its connections, which go through {}; {}", server,
                        SessionProbe.POOLER, jdbcOptions.listenUrl().isPresent() ? "releases are pushed through listenUrl"
                                : "waiters poll (set JdbcOptions.listenUrl to a direct URL to have releases pushed, and "
                                        + "pooling(TRANSACTION) to skip this 1 s check)");
            }
        } catch (SQLException e) {
            throw new LockUnavailableException(String.format("could not connect to the lock database: %s (SQLState %s)",
                    e.getMessage(), e.getSQLState()), e);
        }
        if (jdbcOptions.listenUrl().isPresent()) {
            String listenUrl = jdbcOptions.listenUrl().get();
            checkListenUrl(listenUrl, dataSource);
            return new Detected(dialect, server, sessionless, () -> java.sql.DriverManager.getConnection(listenUrl));
        }
        return new Detected(dialect, server, sessionless, sessionless ? null : dataSource::getConnection);
    }

    /** Fails unless a notification sent through {@code dataSource} arrives on a connection to {@code listenUrl}. */
    private static void checkListenUrl(String listenUrl, DataSource dataSource) {
        try (Connection listen = java.sql.DriverManager.getConnection(listenUrl)) {
            if (!SessionProbe.notificationsArrive(listen, dataSource, SessionProbe.WAIT)) {
                throw new IllegalArgumentException(String.format("listenUrl %s must name the PostgreSQL server directly: "
                        + "a notification sent through the data source did not arrive on it within %d ms (does it go "
                        + "through %s too, or to another database?)", JdbcUrls.redact(listenUrl),
                        SessionProbe.WAIT.toMillis(), SessionProbe.POOLER));
            }
        } catch (SQLException e) {
            throw new LockUnavailableException(String.format("could not connect to listenUrl %s: %s (SQLState %s)",
                    JdbcUrls.redact(listenUrl), e.getMessage(), e.getSQLState()), e);
        }
    }

    private record Detected(SqlDialect dialect, String server, boolean sessionless, Wakeups.Connections listenOn) {
    }
}
