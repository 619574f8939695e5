package io.latchkey.jdbc;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable settings of the JDBC backend, on top of the backend-neutral {@link io.latchkey.ClientOptions}.
 *
 * <pre>{@code
 * JdbcOptions options = JdbcOptions.builder()
 *     .tableName("locks.latchkey_locks")
 *     .createTable(false)            // managed by Flyway: SqlDialect.lockTableDdl and tokenSequenceDdl
 *     .build();
 * }</pre>
 *
 * <p>Every setter checks its argument at once and throws {@link IllegalArgumentException} with the reason.
 */
public final class JdbcOptions {

    /** The default lock table. */
    public static final String DEFAULT_TABLE = "latchkey_locks";
    /** The default fencing table of {@link FencingGuard}. */
    public static final String DEFAULT_FENCING_TABLE = "latchkey_fencing";

    private static final JdbcOptions DEFAULTS = builder().build();

    private final String tableName;
    private final boolean createTable;
    private final SqlDialect dialect;
    private final Duration maxPollInterval;
    private final int ioThreads;
    private final Pooling pooling;
    private final String listenUrl;

    private JdbcOptions(Builder b) {
        this.pooling = b.pooling;
        this.listenUrl = b.listenUrl;
        this.tableName = b.tableName;
        this.createTable = b.createTable;
        this.dialect = b.dialect;
        this.maxPollInterval = b.maxPollInterval;
        this.ioThreads = b.ioThreads;
    }

    /**
     * The defaults: table {@value #DEFAULT_TABLE}, created when missing, dialect detected, re-checks at most every
     * 100 ms, 16 I/O threads.
     *
     * @return the shared default options
     */
    public static JdbcOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder that starts from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The lock table, optionally schema-qualified; the sequence {@code <table>_token} and the tables
     * {@code <table>_counts} and {@code <table>_permits} take their names from it.
     *
     * @return the table name, a checked SQL identifier
     */
    public String tableName() {
        return tableName;
    }

    /**
     * Whether a missing lock table and its token sequence are created (and a table of the earlier counter-per-row
     * layout upgraded with a sequence) on first use ({@code true} by default); when off, a missing one fails the
     * client with the DDL to run.
     *
     * @return whether missing schema objects are created
     */
    public boolean createTable() {
        return createTable;
    }

    /**
     * The dialect, or empty to detect it from the connection's metadata.
     *
     * @return the forced dialect, or empty
     */
    public Optional<SqlDialect> dialect() {
        return Optional.ofNullable(dialect);
    }

    /**
     * The longest pause between two re-checks of a busy lock on databases without notifications (MariaDB,
     * MySQL, H2), and of the fallback re-check on PostgreSQL (where releases are pushed by {@code NOTIFY}).
     * Re-checks back off from 2 ms up to this, and never sleep past the holder's remaining lease.
     *
     * @return the longest re-check pause, 2 ms to 1 minute
     */
    public Duration maxPollInterval() {
        return maxPollInterval;
    }

    /**
     * Threads that run blocking JDBC calls for the asynchronous engine of a {@link JdbcLockClient}: at most this
     * many of its calls run at once, the rest queue; an idle thread ends after 30 s.
     *
     * @return the number of I/O threads, 1 to 1024
     */
    public int ioThreads() {
        return ioThreads;
    }

    /**
     * What the connections of the data source are: {@link Pooling#DETECT} (the default) finds out when the client is
     * created, on PostgreSQL, whether they keep a session (see {@link Pooling}).
     *
     * @return how the client treats its connections
     */
    public Pooling pooling() {
        return pooling;
    }

    /**
     * A direct PostgreSQL JDBC URL (not through the pooler) on which the client keeps its one {@code LISTEN}
     * connection when its data source goes through a transaction-pooling proxy such as PgBouncer: releases are then
     * pushed as they are on a direct connection. Empty by default: behind such a pooler waiters then poll.
     *
     * @return the URL of the listener connection, or empty
     */
    public Optional<String> listenUrl() {
        return Optional.ofNullable(listenUrl);
    }

    @Override
    public String toString() {
        return "JdbcOptions{tableName=" + tableName + ", createTable=" + createTable + ", dialect="
                + (dialect == null ? "auto" : dialect) + ", maxPollInterval=" + maxPollInterval + ", ioThreads="
                + ioThreads + ", pooling=" + pooling
                + (listenUrl == null ? "" : ", listenUrl=" + JdbcUrls.redact(listenUrl)) + "}";
    }

    /**
     * Whether the data source's connections are database sessions, or go through a pooler that hands a server
     * connection to a client for one transaction only (PgBouncer's {@code pool_mode = transaction}, and the like),
     * where nothing of a session survives between transactions: {@code LISTEN}, session advisory locks, session
     * settings, named server-side prepared statements.
     */
    public enum Pooling {
        /**
         * Find out when the client is created (PostgreSQL only; elsewhere {@link #SESSION}): one {@code LISTEN} on a
         * connection of the data source and one {@code NOTIFY} from another; when the notification does not arrive
         * within a second, the connections are treated as {@link #TRANSACTION}. Costs a few milliseconds on a
         * direct connection, a second behind a transaction pooler (set {@link #TRANSACTION} to skip it).
         */
        DETECT,
        /** The connections are sessions (direct, or a pooler in session mode): {@code LISTEN} on one of them. */
        SESSION,
        /**
         * The connections go through a transaction pooler: no statement relies on a session (PgJDBC's server-side
         * prepared statements are turned off on each borrowed connection), releases are pushed through
         * {@link JdbcOptions#listenUrl()} when one is set and polled for otherwise, and
         * {@link JdbcAdvisoryLockClient} refuses to start.
         */
        TRANSACTION
    }

    /** Builds {@link JdbcOptions}; not thread-safe. */
    public static final class Builder {
        private String tableName = DEFAULT_TABLE;
        private boolean createTable = true;
        private SqlDialect dialect;
        private Duration maxPollInterval = Duration.ofMillis(100);
        private int ioThreads = 16;
        private Pooling pooling = Pooling.DETECT;
        private String listenUrl;

        private Builder() {
        }

        /** A builder that starts from {@code o}. */
        static Builder from(JdbcOptions o) {
            Builder b = new Builder();
            b.tableName = o.tableName;
            b.createTable = o.createTable;
            b.dialect = o.dialect;
            b.maxPollInterval = o.maxPollInterval;
            b.ioThreads = o.ioThreads;
            b.pooling = o.pooling;
            b.listenUrl = o.listenUrl;
            return b;
        }

        /**
         * Says what the data source's connections are (default {@link Pooling#DETECT}).
         *
         * @param pooling sessions, a transaction pooler, or detect it
         * @return this builder
         * @throws NullPointerException if it is null
         */
        public Builder pooling(Pooling pooling) {
            this.pooling = Objects.requireNonNull(pooling, "pooling");
            return this;
        }

        /**
         * Sets a direct PostgreSQL URL for the client's {@code LISTEN} connection (default: none, the listener uses
         * the data source), for data sources behind a transaction pooler; {@code null} removes it. The client opens
         * this one connection with {@link java.sql.DriverManager} and keeps it while open.
         *
         * @param listenUrl a {@code jdbc:postgresql:} URL, credentials included, or {@code null}
         * @return this builder
         * @throws IllegalArgumentException if it is not a {@code jdbc:postgresql:} URL
         */
        public Builder listenUrl(String listenUrl) {
            if (listenUrl != null && !listenUrl.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException(String.format(
                        "listenUrl must be a jdbc:postgresql: URL (LISTEN is PostgreSQL's) but was %s",
                        JdbcUrls.redact(listenUrl)));
            }
            this.listenUrl = listenUrl;
            return this;
        }

        /**
         * Sets the lock table (default {@value JdbcOptions#DEFAULT_TABLE}).
         *
         * @param tableName a plain or schema-qualified SQL identifier
         * @return this builder
         * @throws IllegalArgumentException if it is not a plain or schema-qualified SQL identifier
         * @throws NullPointerException if it is null
         */
        public Builder tableName(String tableName) {
            this.tableName = SqlIdentifiers.qualifiedName("tableName", tableName);
            return this;
        }

        /**
         * Sets whether a missing lock table and its sequence are created (default {@code true}).
         *
         * @param createTable {@code false} when the schema is managed elsewhere
         * @return this builder
         */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /**
         * Forces a dialect instead of detecting it (default: detected).
         *
         * @param dialect the dialect of the database
         * @return this builder
         * @throws NullPointerException if it is null
         */
        public Builder dialect(SqlDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * Sets the longest pause between re-checks of a busy lock (default 100 ms).
         *
         * @param maxPollInterval the longest pause, see {@link JdbcOptions#maxPollInterval()}
         * @return this builder
         * @throws IllegalArgumentException if it is below 2 ms or above 1 minute
         */
        public Builder maxPollInterval(Duration maxPollInterval) {
            Objects.requireNonNull(maxPollInterval, "maxPollInterval");
            if (maxPollInterval.toMillis() < 2 || maxPollInterval.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(String.format(
                        "maxPollInterval must be between 2ms and 1 minute but was %s", maxPollInterval));
            }
            this.maxPollInterval = maxPollInterval;
            return this;
        }

        /**
         * Sets the number of threads that run JDBC calls (default 16).
         *
         * @param ioThreads the number of I/O threads
         * @return this builder
         * @throws IllegalArgumentException if it is not between 1 and 1024
         */
        public Builder ioThreads(int ioThreads) {
            if (ioThreads < 1 || ioThreads > 1024) {
                throw new IllegalArgumentException(
                        String.format("ioThreads must be between 1 and 1024 but was %d", ioThreads));
            }
            this.ioThreads = ioThreads;
            return this;
        }

        /**
         * Builds the options; the builder may be reused.
         *
         * @return immutable options with this builder's settings
         */
        public JdbcOptions build() {
            return new JdbcOptions(this);
        }
    }
}
