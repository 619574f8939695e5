package io.latchkey.jdbc;

import io.latchkey.core.CountKind;

/**
 * The tables and statements of the SQL counted primitives beside one lease table {@code <table>}:
 * {@code <table>_counts}, one row per (kind, name) ({@link CountKind#label()}: a semaphore's free permits, a
 * permit-expirable semaphore's total, an armed latch's count; a latch's row exists only while it is armed), and
 * {@code <table>_permits}, one row per leased permit, which also keeps the records of semaphore takes whose answer the
 * client has not seen yet ({@link JdbcSemaphoreOps}) under the namespace's reserved name {@link #takeRecords} (no
 * semaphore name has a control character). Every decision that reads a time compares against the database's clock, as
 * the lock rows do; leased permits take their fencing tokens from the lease table's sequence.
 */
final class CountTableSql {

    /** How many expired permit rows one {@link #reapPermits} statement deletes at most. */
    static final int REAP_BATCH = 1000;

    final SqlDialect dialect;
    final String counts;
    final String permits;
    final String nextTokenQuery;

    final String selectCount;
    final String selectCountForUpdate;
    final String insertCount;
    final String addToCount;
    final String takeFromCount;
    final String setCount;
    final String armIfOpen;
    final String countDownAboveOne;
    final String deleteAtOne;

    final String deleteExpiredPermits;
    final String livePermitsExcept;
    final String livePermits;
    final String deletePermit;
    final String insertPermit;
    final String releaseLivePermit;
    final String updateLease;
    final String renewPermit;
    final String reapPermits;
    final String probeCounts;
    final String probePermits;

    /** PostgreSQL: a take with its record, and the deletes of answered takes' records, in one statement. */
    final String takeRecorded;
    /** PostgreSQL: {@link #addToCount} with the deletes of answered takes' records, in one statement. */
    final String addToCountDeleting;

    CountTableSql(SqlDialect dialect, String lockTable) {
        this.dialect = dialect;
        String table = SqlIdentifiers.qualifiedName("table", lockTable);
        this.counts = LeaseTableSql.derivedName(table, "_counts");
        this.permits = LeaseTableSql.derivedName(table, "_permits");
        this.nextTokenQuery = "SELECT " + dialect.nextValue(LeaseTableSql.sequenceOf(table));
        String now = dialect.nowMillis();
        String byName = " WHERE kind = ? AND count_name = ?";
        selectCount = "SELECT count_value FROM " + counts + byName;
        selectCountForUpdate = selectCount + " FOR UPDATE";
        insertCount = "INSERT INTO " + counts + " (kind, count_name, count_value) VALUES (?, ?, ?)";
        addToCount = "UPDATE " + counts + " SET count_value = count_value + ?" + byName;
        takeFromCount = "UPDATE " + counts + " SET count_value = count_value - ?" + byName + " AND count_value >= ?";
        setCount = "UPDATE " + counts + " SET count_value = ?" + byName;
        armIfOpen = "UPDATE " + counts + " SET count_value = ?" + byName + " AND count_value <= 0";
        countDownAboveOne = "UPDATE " + counts + " SET count_value = count_value - 1" + byName + " AND count_value > 1";
        deleteAtOne = "DELETE FROM " + counts + byName + " AND count_value <= 1";

        String bySemaphore = " WHERE semaphore_name = ?";
        deleteExpiredPermits = "DELETE FROM " + permits + bySemaphore + " AND expires_at <= " + now;
        livePermitsExcept = "SELECT COUNT(*), MIN(expires_at) - " + now + " FROM " + permits + bySemaphore
                + " AND expires_at > " + now + " AND permit_id <> ?";
        livePermits = "SELECT COUNT(*) FROM " + permits + bySemaphore + " AND expires_at > " + now;
        deletePermit = "DELETE FROM " + permits + bySemaphore + " AND permit_id = ?";
        insertPermit = "INSERT INTO " + permits
                + " (semaphore_name, permit_id, token, expires_at, acquired_at, watchdog) VALUES (?, ?, ?, " + now
                + " + ?, " + now + ", ?)";
        releaseLivePermit = deletePermit + " AND expires_at > " + now;
        updateLease = "UPDATE " + permits + " SET expires_at = " + now + " + ?, watchdog = FALSE" + bySemaphore
                + " AND permit_id = ? AND expires_at > " + now;
        renewPermit = "UPDATE " + permits + " SET expires_at = " + now + " + ?" + bySemaphore
                + " AND permit_id = ? AND token = ? AND expires_at > " + now;
        reapPermits = "DELETE FROM " + permits + switch (dialect) {
            case POSTGRESQL -> " WHERE (semaphore_name, permit_id) IN (SELECT semaphore_name, permit_id FROM "
                    + permits + " WHERE expires_at <= " + now + " LIMIT " + REAP_BATCH + ") AND expires_at <= " + now;
            case MYSQL -> " WHERE expires_at <= " + now + " LIMIT " + REAP_BATCH;
            case H2 -> " WHERE expires_at <= " + now + " FETCH FIRST " + REAP_BATCH + " ROWS ONLY";
        };
        if (dialect == SqlDialect.POSTGRESQL) {
            String deleting = "WITH d AS (DELETE FROM " + permits + " WHERE semaphore_name = ? AND permit_id = ANY(?))";
            takeRecorded = deleting + ", t AS (" + takeFromCount + " RETURNING 1) INSERT INTO " + permits
                    + " (semaphore_name, permit_id, token, expires_at, acquired_at, watchdog) SELECT ?, ?, ?, " + now
                    + " + ?, " + now + ", FALSE FROM t";
            addToCountDeleting = deleting + " " + addToCount;
        } else {
            takeRecorded = null;
            addToCountDeleting = null;
        }
        probeCounts = "SELECT kind, count_name, count_value FROM " + counts + " WHERE 1 = 0";
        probePermits = "SELECT semaphore_name, permit_id, token, expires_at, acquired_at, watchdog FROM " + permits
                + " WHERE 1 = 0";
    }

    /**
     * The reserved {@code semaphore_name} of the take records of semaphores of {@code namespace}: the namespace's key
     * prefix and U+001E, which no name may contain.
     */
    static String takeRecords(String namespace) {
        return LeaseTableRows.keyPrefix(namespace) + '\u001e';
    }

    /** Deletes the take records (semaphore name, then {@code n} take ids) of answered takes: databases without arrays. */
    String deleteRecords(int n) {
        return "DELETE FROM " + permits + " WHERE semaphore_name = ? AND permit_id IN (?" + ", ?".repeat(n - 1) + ")";
    }

    /** The DDL of the counts table beside the lease table {@code table}. */
    static String countTableDdl(SqlDialect dialect, String table) {
        return "CREATE TABLE IF NOT EXISTS " + derived(table, "_counts") + " (\n"
                + "  kind        VARCHAR(16)  NOT NULL,\n"
                + "  count_name  " + dialect.bin("VARCHAR(650)") + " NOT NULL,\n"
                + "  count_value BIGINT       NOT NULL,\n"
                + "  PRIMARY KEY (kind, count_name)\n" + dialect.engine();
    }

    /** The DDL of the leased-permits table beside the lease table {@code table}. */
    static String permitTableDdl(SqlDialect dialect, String table) {
        return "CREATE TABLE IF NOT EXISTS " + derived(table, "_permits") + " (\n"
                + "  semaphore_name " + dialect.bin("VARCHAR(650)") + " NOT NULL,\n"
                + "  permit_id      " + dialect.bin("VARCHAR(100)") + " NOT NULL,\n"
                + "  token          BIGINT  NOT NULL,\n"
                + "  expires_at     BIGINT  NOT NULL,\n"
                + "  acquired_at    BIGINT  NOT NULL,\n"
                + "  watchdog       BOOLEAN NOT NULL,\n"
                + "  PRIMARY KEY (semaphore_name, permit_id)\n" + dialect.engine();
    }

    private static String derived(String table, String suffix) {
        return LeaseTableSql.derivedName(SqlIdentifiers.qualifiedName("table", table), suffix);
    }
}
