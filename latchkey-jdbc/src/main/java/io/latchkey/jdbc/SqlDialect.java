package io.latchkey.jdbc;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL databases the JDBC backend speaks to. Each dialect knows how to read the database's clock, how to
 * upsert a lock row in one statement, and the DDL of the lock table.
 */
public enum SqlDialect {
    /** PostgreSQL 12 or later: {@code INSERT … ON CONFLICT}, {@code LISTEN/NOTIFY} wake-ups, advisory locks. */
    POSTGRESQL("(EXTRACT(EPOCH FROM now()) * 1000)::BIGINT"),
    /** MariaDB 10.3+ and MySQL 8: {@code INSERT … ON DUPLICATE KEY UPDATE}, {@code GET_LOCK} advisory locks. */
    // UTC_TIMESTAMP and TIMESTAMPDIFF between two DATETIMEs involve no session time zone: no DST jumps.
    MYSQL("(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)"),
    /** H2 2.x: {@code MERGE … USING}; no advisory locks. */
    H2("CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)");

    private final String nowMillis;

    SqlDialect(String nowMillis) {
        this.nowMillis = nowMillis;
    }

    /** An SQL expression for the database's current time in epoch milliseconds. */
    String nowMillis() {
        return nowMillis;
    }

    /** An SQL expression for the database's current time in epoch microseconds (the clock, not the transaction's). */
    String nowMicros() {
        return switch (this) {
            case POSTGRESQL -> "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";
            case MYSQL -> "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
            case H2 -> "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(6)) * 1000000 AS BIGINT)";
        };
    }

    /** An SQL expression for the next value of {@code sequence} (a checked identifier). */
    String nextValue(String sequence) {
        return switch (this) {
            case POSTGRESQL -> "nextval('" + sequence + "')";
            case MYSQL -> "NEXTVAL(" + sequence + ")";
            case H2 -> "NEXT VALUE FOR " + sequence;
        };
    }

    /** MySQL's binary collation for a text column's type, so that names compare as PostgreSQL and H2 compare them. */
    String bin(String type) {
        return this == MYSQL ? type + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" : type;
    }

    /** The end of a {@code CREATE TABLE}: InnoDB on MySQL. */
    String engine() {
        return this == MYSQL ? ") ENGINE=InnoDB" : ")";
    }

    /**
     * The dialect of the database behind {@code metaData}.
     *
     * @param metaData a connection's metadata; its product name decides, as in {@link #ofProductName(String)}
     * @return the dialect
     * @throws IllegalArgumentException naming the product if it is none of the supported databases
     * @throws SQLException if the driver cannot report the product name
     */
    public static SqlDialect of(DatabaseMetaData metaData) throws SQLException {
        return ofProductName(metaData.getDatabaseProductName());
    }

    /**
     * The dialect for a JDBC product name ({@code "PostgreSQL"}, {@code "MariaDB"}, {@code "MySQL"}, {@code "H2"}).
     *
     * @param productName {@link DatabaseMetaData#getDatabaseProductName()}, in any letter case: a name containing
     *        {@code postgres} is PostgreSQL, one containing {@code mariadb} or {@code mysql} is MySQL, {@code h2}
     *        exactly is H2; {@code null} is unsupported
     * @return the dialect
     * @throws IllegalArgumentException naming the product if it is none of the supported databases
     */
    public static SqlDialect ofProductName(String productName) {
        String p = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) {
            return POSTGRESQL;
        }
        if (p.contains("mariadb") || p.contains("mysql")) {
            return MYSQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException(String.format(
                "unsupported database '%s': the JDBC backend supports PostgreSQL, MariaDB/MySQL and H2", productName));
    }

    /**
     * The DDL that creates the lock table {@code table} in this dialect, for teams that manage schemas
     * themselves; the table also needs its token sequence, {@link #tokenSequenceDdl(String)}. A row exists only while
     * its lock is held (or until an expired one is reclaimed); the fencing tokens come from the sequence.
     *
     * @param table the lock table, a plain or schema-qualified SQL identifier
     * @return a {@code CREATE TABLE IF NOT EXISTS} statement
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String lockTableDdl(String table) {
        String t = SqlIdentifiers.qualifiedName("table", table);
        return "CREATE TABLE IF NOT EXISTS " + t + " (\n"
                + "  lock_name   " + bin("VARCHAR(650)") + " NOT NULL PRIMARY KEY,\n"
                + "  owner       " + bin("VARCHAR(255)") + (this == MYSQL ? " NULL" : "") + ",\n"
                + "  hold_count  INTEGER      NOT NULL DEFAULT 0,\n"
                + "  token       BIGINT       NOT NULL,\n"
                + "  expires_at  BIGINT       NOT NULL,\n"
                + "  acquired_at BIGINT       NOT NULL,\n"
                + (this == POSTGRESQL ? "  waiting     BOOLEAN      NOT NULL DEFAULT FALSE,\n" : "")
                + "  client_name " + bin("VARCHAR(128)") + (this == MYSQL ? " NULL" : "") + ",\n"
                + "  attempt_id  VARCHAR(32)" + (this == MYSQL ? " CHARACTER SET ascii COLLATE ascii_bin NULL" : "")
                + "\n" + engine();
    }

    /**
     * {@return the DDL that adds the {@code client_name} column (the holding client's name) to a lock table created by
     * an earlier version}
     *
     * @param table the lock table's name, optionally schema-qualified
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String clientNameColumnDdl(String table) {
        return "ALTER TABLE " + SqlIdentifiers.qualifiedName("table", table) + " ADD COLUMN client_name "
                + bin("VARCHAR(128)") + (this == MYSQL ? " NULL" : "");
    }

    /**
     * {@return the DDL that adds the {@code attempt_id} column (the id of the acquire attempt that wrote the row, by
     * which the client removes a row whose acquire answer never reached it) to a lock table created by an earlier
     * version}
     *
     * @param table the lock table's name, optionally schema-qualified
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String attemptIdColumnDdl(String table) {
        return "ALTER TABLE " + SqlIdentifiers.qualifiedName("table", table) + " ADD COLUMN attempt_id VARCHAR(32)"
                + (this == MYSQL ? " CHARACTER SET ascii COLLATE ascii_bin NULL" : "");
    }

    /**
     * The DDL that creates the fencing-token sequence of the lock table {@code table} ({@code <table>_token}),
     * starting at this JVM's clock in epoch microseconds: above every token a lock table of an earlier layout (a
     * counter per row) or a sequence created earlier can have issued, as long as the lock tables issued fewer than
     * one token per microsecond on average. The client creates it itself, starting at the larger of the database's
     * clock and the table's highest token, unless {@link JdbcOptions#createTable()} is off. Needs sequences:
     * PostgreSQL, MariaDB 10.3 or later, H2 (MySQL has none).
     *
     * @param table the lock table, a plain or schema-qualified SQL identifier; the sequence is in its schema, its
     *        name cut so that it stays within 63 characters
     * @return a {@code CREATE SEQUENCE IF NOT EXISTS} statement
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String tokenSequenceDdl(String table) {
        return tokenSequenceDdl(table, System.currentTimeMillis() * 1000);
    }

    String tokenSequenceDdl(String table, long start) {
        String seq = LeaseTableSql.sequenceOf(SqlIdentifiers.qualifiedName("table", table));
        // PostgreSQL caches per session: with CACHE > 1 a later nextval in another session could return a smaller
        // value, so a later holder of a name could get a smaller token. CACHE 1 (its default) hands values out in
        // time order. MariaDB's and H2's caches are per database and keep that order; a restart skips the rest of
        // a cached block (a gap, never a repeat).
        return "CREATE SEQUENCE IF NOT EXISTS " + seq + " START WITH " + start
                + (this == POSTGRESQL ? " CACHE 1" : "");
    }

    /**
     * The DDL of the table {@code <table>_counts} that the semaphores, permit-expirable semaphores and count-down
     * latches of the lock table {@code table} keep their counts in (one row per semaphore, one per armed latch),
     * for teams that manage schemas themselves. The client creates it on first use of one of those primitives unless
     * {@link JdbcOptions#createTable()} is off.
     *
     * @param table the lock table (a plain or schema-qualified SQL identifier)
     * @return a {@code CREATE TABLE IF NOT EXISTS} statement
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String countTableDdl(String table) {
        return CountTableSql.countTableDdl(this, table);
    }

    /**
     * The DDL of the table {@code <table>_permits} that the permit-expirable semaphores of the lock table
     * {@code table} keep their leased permits in (one row per held permit), for teams that manage schemas
     * themselves; created on first use like {@link #countTableDdl(String)}.
     *
     * @param table the lock table (a plain or schema-qualified SQL identifier)
     * @return a {@code CREATE TABLE IF NOT EXISTS} statement
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String permitTableDdl(String table) {
        return CountTableSql.permitTableDdl(this, table);
    }

    /**
     * The DDL of the fencing table used by {@link FencingGuard}: one row per protected resource with the highest
     * fencing token seen, for teams that manage schemas themselves.
     *
     * @param table the fencing table, a plain or schema-qualified SQL identifier
     * @return a {@code CREATE TABLE IF NOT EXISTS} statement
     * @throws IllegalArgumentException if {@code table} is not a plain or schema-qualified SQL identifier
     */
    public String fencingTableDdl(String table) {
        return "CREATE TABLE IF NOT EXISTS " + SqlIdentifiers.qualifiedName("table", table) + " (\n"
                + "  resource_name " + bin("VARCHAR(650)") + " NOT NULL PRIMARY KEY,\n"
                + "  token         BIGINT NOT NULL\n" + engine();
    }
}
