package io.latchkey.jdbc;

/**
 * The statements of the lease-table lock for one dialect and table. Every decision (free or held, expired or not,
 * whose row it is) is taken inside one statement against the database's own clock, so that two clients with skewed
 * clocks can never both win. A row exists only while its name is held (or until an expired one is reclaimed or
 * {@linkplain #reap reaped}). The fencing token comes from the table's token sequence ({@link #sequence}): every
 * free-to-held transition, hand-off included, takes its next value, so tokens grow strictly per name.
 *
 * <p><b>A token is drawn only after the row is the acquirer's.</b> Drawn before the row conflict is resolved, A could
 * draw 490, B draw 491, acquire and release, and A then insert its row with 490. So a free-to-held transition writes
 * the placeholder {@link #UNTOKENED} ({@link #acquire}), and {@link #tokenize} gives the row the sequence's next value
 * only where it is still this owner's and untokened (PostgreSQL sends both in one implicit transaction; its take-over
 * of an existing free row draws the value in the conflict branch, on the locked latest version of the row). Why every
 * grant G of a name follows the earlier grant E: E's token was drawn by E's tokenize, a write of the row while it was
 * E's; writes of one row are serialized, and had G's acquire written the row first, E's tokenize would have found it
 * not E's and E would have no grant. So E's tokenize committed before G's acquire, before G's tokenize drew its value;
 * sequence values grow in real time across sessions (PostgreSQL CACHE 1; MariaDB's and H2's caches are per database),
 * so G's token is above E's. A losing attempt leaves a gap, never a repeat; a MariaDB or H2 client that dies between
 * the two statements leaves an untokened row that expires and is taken over with a fresh token. A hand-off draws its
 * token while the row is held by the grant it replaces and writes only if that grant still holds it.
 */
final class LeaseTableSql {

    /** How many expired rows one {@link #reap} statement deletes at most. */
    static final int REAP_BATCH = 1000;
    /** The token of a row whose acquire has not yet drawn its token ({@link #tokenize}); the sequence never issues it. */
    static final long UNTOKENED = 0;

    final SqlDialect dialect;
    final String table;
    /** The token sequence: {@code <table>_token}, the table name cut to keep it a valid identifier. */
    final String sequence;
    final String nextToken;
    /**
     * Acquire: writes the row for its owner, with token {@link #UNTOKENED} when it was free (PostgreSQL: when it
     * inserted it; a take-over of an existing free row draws the token in place). PostgreSQL returns the row's
     * token (no row when busy); the others are followed by {@link #tokenize} and {@link #state}.
     */
    final String acquire;
    /** Gives the owner's untokened row the sequence's next value (name, owner); PostgreSQL returns it. */
    final String tokenize;
    /** The row's owner, token, remaining lease (ms, database clock) and acquisition time. */
    final String state;
    /**
     * Release by owner and token: deletes the row. PostgreSQL returns one row (whether the lease was still live)
     * and notifies waiters (payload: the lock name); the others delete only a live row and report a count.
     */
    final String release;
    /** Other dialects, after a {@link #release} that deleted nothing: deletes the owner's expired row (no residue). */
    final String releaseExpired;
    /** PostgreSQL: flags a held row as awaited (so that its release notifies) and returns its state. */
    final String markWaiting;
    /** Hand-off to a new owner with a new token; PostgreSQL returns it, the others bind it ({@link #nextTokenQuery}). */
    final String handOff;
    final String nextTokenQuery;
    final String isLocked;
    /** Deletes the row of a name; PostgreSQL returns whether it was held and notifies; others delete a live row. */
    final String forceUnlock;
    /** Other dialects, after a {@link #forceUnlock} that deleted nothing: deletes a free or expired row. */
    final String forceUnlockExpired;
    /** Deletes at most {@link #REAP_BATCH} expired rows (PostgreSQL: notifying flagged waiters). */
    final String reap;
    final String probe;
    final boolean clientColumn;
    final String probeClientColumn;
    /** The row's owner, token, remaining lease (ms, database clock), acquisition time (epoch ms) and client name. */
    final String holder;
    final boolean attemptColumn;
    final String probeAttemptColumn;
    /**
     * The clean-up of an attempt whose answer never arrived: deletes the row of (name, owner, attempt id), never a
     * later hold of the owner (its acquire wrote another attempt id). PostgreSQL returns one row if it deleted one
     * and notifies flagged waiters, as a release does; the others report a count. {@code null} without the column.
     */
    final String cleanUp;

    LeaseTableSql(SqlDialect dialect, String table) {
        this(dialect, table, true, true);
    }

    /**
     * @param clientColumn whether the table has the {@code client_name} column: acquires then write the client's name
     *        (one more parameter, after the lease) and {@link #holder} reads it
     * @param attemptColumn whether the table has the {@code attempt_id} column: acquires and hand-offs then write the
     *        request's attempt id (one more parameter, after the client's name) and {@link #cleanUp} deletes by it
     */
    LeaseTableSql(SqlDialect dialect, String table, boolean clientColumn, boolean attemptColumn) {
        this.clientColumn = clientColumn;
        this.attemptColumn = attemptColumn;
        String clientCol = (clientColumn ? ", client_name" : "") + (attemptColumn ? ", attempt_id" : "");
        String clientVal = (clientColumn ? ", ?" : "") + (attemptColumn ? ", ?" : "");
        String setAttempt = attemptColumn ? ", attempt_id = ?" : "";
        String byAttempt = " WHERE lock_name = ? AND owner = ? AND attempt_id = ?";
        this.dialect = dialect;
        this.table = SqlIdentifiers.qualifiedName("table", table);
        this.sequence = sequenceOf(this.table);
        this.nextToken = dialect.nextValue(sequence);
        String now = dialect.nowMillis();
        String free = "(l.owner IS NULL OR l.expires_at <= " + now + ")";
        String byOwner = " WHERE lock_name = ? AND owner = ? AND token = ?";
        if (dialect == SqlDialect.POSTGRESQL) {
            acquire = "INSERT INTO " + table + " AS l (lock_name, owner, hold_count, token, expires_at, acquired_at"
                    + clientCol + ") VALUES (?, ?, 1, " + UNTOKENED + ", " + now + " + ?, " + now + clientVal + ")"
                    + " ON CONFLICT (lock_name) DO UPDATE SET"
                    + (clientColumn ? " client_name = EXCLUDED.client_name," : "")
                    + (attemptColumn ? " attempt_id = EXCLUDED.attempt_id," : "")
                    + " token = CASE WHEN " + free + " THEN " + nextToken + " ELSE l.token END,"
                    + " hold_count = CASE WHEN " + free + " THEN 1 ELSE l.hold_count + 1 END,"
                    + " acquired_at = CASE WHEN " + free + " THEN EXCLUDED.acquired_at ELSE l.acquired_at END,"
                    + " waiting = CASE WHEN " + free + " THEN FALSE ELSE l.waiting END,"
                    + " owner = EXCLUDED.owner,"
                    + " expires_at = EXCLUDED.expires_at"
                    + " WHERE " + free + " OR l.owner = EXCLUDED.owner"
                    + " RETURNING l.token";
            tokenize = "UPDATE " + table + " SET token = " + nextToken + " WHERE lock_name = ? AND owner = ?"
                    + " AND token = " + UNTOKENED + " RETURNING token";
            // NOTIFY serializes committing transactions on a global queue lock: only send it when a waiter
            // has flagged the row (markWaiting); a new row starts unflagged.
            release = "WITH r AS (DELETE FROM " + table + byOwner
                    + " RETURNING lock_name, waiting, expires_at > " + now + " AS live)"
                    + " SELECT live, CASE WHEN waiting THEN pg_notify(?, lock_name) END FROM r";
            releaseExpired = null;
            markWaiting = "UPDATE " + table + " SET waiting = TRUE WHERE lock_name = ? AND owner IS NOT NULL"
                    + " AND expires_at > " + now + " RETURNING owner, token, expires_at - " + now + ", acquired_at";
            forceUnlock = "WITH r AS (DELETE FROM " + table + " WHERE lock_name = ?"
                    + " RETURNING lock_name, owner IS NOT NULL AND expires_at > " + now + " AS live)"
                    + " SELECT live, pg_notify(?, lock_name) FROM r";
            forceUnlockExpired = null;
            cleanUp = attemptColumn ? "WITH r AS (DELETE FROM " + table + byAttempt + " RETURNING lock_name, waiting)"
                    + " SELECT CASE WHEN waiting THEN pg_notify(?, lock_name) END FROM r" : null;
            handOff = "UPDATE " + table + " SET owner = ?, token = " + nextToken + ", hold_count = 1, expires_at = "
                    + now + " + ?, acquired_at = " + now + setAttempt
                    + " WHERE lock_name = ? AND owner = ? AND token = ? AND expires_at > " + now + " RETURNING token";
            // The outer condition is re-checked on the row's latest version (READ COMMITTED), so a row that was
            // re-acquired after the inner SELECT saw it is left alone.
            reap = "WITH r AS (DELETE FROM " + table + " WHERE lock_name IN (SELECT lock_name FROM " + table
                    + " WHERE expires_at <= " + now + " LIMIT " + REAP_BATCH + ") AND expires_at <= " + now
                    + " RETURNING lock_name, waiting) SELECT count(*), count(pg_notify(?, lock_name))"
                    + " FILTER (WHERE waiting) FROM r";
        } else {
            release = "DELETE FROM " + table + byOwner + " AND expires_at > " + now;
            releaseExpired = "DELETE FROM " + table + byOwner;
            forceUnlock = "DELETE FROM " + table + " WHERE lock_name = ? AND owner IS NOT NULL AND expires_at > " + now;
            forceUnlockExpired = "DELETE FROM " + table + " WHERE lock_name = ?";
            markWaiting = null;
            handOff = "UPDATE " + table + " SET owner = ?, token = ?, hold_count = 1, expires_at = " + now
                    + " + ?, acquired_at = " + now + setAttempt
                    + " WHERE lock_name = ? AND owner = ? AND token = ? AND expires_at > " + now;
            cleanUp = attemptColumn ? "DELETE FROM " + table + byAttempt : null;
            tokenize = "UPDATE " + table + " SET token = " + nextToken + " WHERE lock_name = ? AND owner = ?"
                    + " AND token = " + UNTOKENED;
            if (dialect == SqlDialect.MYSQL) {
                // MySQL assigns left to right and later expressions see earlier assignments: owner is assigned
                // after every column whose condition reads it, and expires_at last, keyed on the new owner.
                String mfree = "(owner IS NULL OR expires_at <= " + now + ")";
                acquire = "INSERT INTO " + table + " (lock_name, owner, hold_count, token, expires_at, acquired_at"
                        + clientCol + ") VALUES (?, ?, 1, " + UNTOKENED + ", " + now + " + ?, " + now + clientVal + ")"
                        + " ON DUPLICATE KEY UPDATE"
                        + (clientColumn ? " client_name = IF(" + mfree + ", VALUES(client_name), client_name)," : "")
                        + (attemptColumn ? " attempt_id = IF(" + mfree + " OR owner = VALUES(owner),"
                                + " VALUES(attempt_id), attempt_id)," : "")
                        + " token = IF(" + mfree + ", " + UNTOKENED + ", token),"
                        + " hold_count = IF(" + mfree + ", 1, IF(owner = VALUES(owner), hold_count + 1, hold_count)),"
                        + " acquired_at = IF(" + mfree + ", VALUES(acquired_at), acquired_at),"
                        + " owner = IF(" + mfree + ", VALUES(owner), owner),"
                        + " expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at)";
                reap = "DELETE FROM " + table + " WHERE expires_at <= " + now + " LIMIT " + REAP_BATCH;
            } else {
                acquire = "MERGE INTO " + table + " l USING (VALUES (CAST(? AS VARCHAR(650)), CAST(? AS VARCHAR(255)),"
                        + " CAST(? AS BIGINT)" + (clientColumn ? ", CAST(? AS VARCHAR(128))" : "")
                        + (attemptColumn ? ", CAST(? AS VARCHAR(32))" : "") + "))"
                        + " s(lock_name, owner, lease" + clientCol + ")"
                        + " ON l.lock_name = s.lock_name"
                        + " WHEN MATCHED AND " + free + " THEN UPDATE SET owner = s.owner, token = " + UNTOKENED + ","
                        + " hold_count = 1, expires_at = " + now + " + s.lease, acquired_at = " + now
                        + (clientColumn ? ", client_name = s.client_name" : "")
                        + (attemptColumn ? ", attempt_id = s.attempt_id" : "")
                        + " WHEN MATCHED AND l.owner = s.owner THEN UPDATE SET hold_count = l.hold_count + 1,"
                        + " expires_at = " + now + " + s.lease" + (attemptColumn ? ", attempt_id = s.attempt_id" : "")
                        + " WHEN NOT MATCHED THEN INSERT (lock_name, owner, hold_count, token, expires_at, acquired_at"
                        + clientCol + ") VALUES (s.lock_name, s.owner, 1, " + UNTOKENED + ", " + now + " + s.lease, "
                        + now + (clientColumn ? ", s.client_name" : "") + (attemptColumn ? ", s.attempt_id" : "") + ")";
                reap = "DELETE FROM " + table + " WHERE expires_at <= " + now + " FETCH FIRST " + REAP_BATCH
                        + " ROWS ONLY";
            }
        }
        nextTokenQuery = "SELECT " + nextToken;
        state = "SELECT owner, token, expires_at - " + now + ", acquired_at FROM " + table + " WHERE lock_name = ?";
        holder = "SELECT owner, token, expires_at - " + now + ", acquired_at, "
                + (clientColumn ? "client_name" : "NULL") + " FROM " + table + " WHERE lock_name = ?";
        probeClientColumn = "SELECT client_name FROM " + table + " WHERE 1 = 0";
        probeAttemptColumn = "SELECT attempt_id FROM " + table + " WHERE 1 = 0";
        isLocked = "SELECT COUNT(*) FROM " + table + " WHERE lock_name = ? AND owner IS NOT NULL AND expires_at > "
                + now;
        probe = "SELECT lock_name, owner, hold_count, token, expires_at, acquired_at"
                + (dialect == SqlDialect.POSTGRESQL ? ", waiting" : "") + " FROM " + table + " WHERE 1 = 0";
    }

    /**
     * The token sequence of {@code table}: {@code <table>_token} in the table's schema ({@link #derivedName}). Two
     * tables that share the sequence would only share a source of unique values, which is harmless.
     */
    static String sequenceOf(String table) {
        return derivedName(table, "_token");
    }

    /**
     * {@code table} with {@code suffix}, in the table's schema, the table name cut so the result stays within 63
     * characters (PostgreSQL's identifier limit): the sequence and the counted primitives' tables.
     */
    static String derivedName(String table, String suffix) {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? "" : table.substring(0, dot + 1);
        String base = dot < 0 ? table : table.substring(dot + 1);
        if (base.length() + suffix.length() > 63) {
            base = base.substring(0, 63 - suffix.length());
        }
        return schema + base + suffix;
    }

    /** PostgreSQL: renews every listed (name, owner, token) whose lease has not run out; returns the renewed. */
    String renewPostgres() {
        String now = dialect.nowMillis();
        return "UPDATE " + table + " l SET expires_at = " + now + " + x.lease"
                + " FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS x(n, o, tk, lease)"
                + " WHERE l.lock_name = x.n AND l.owner = x.o AND l.token = x.tk AND l.expires_at > " + now
                + " RETURNING l.lock_name, l.owner, l.token";
    }

    /**
     * Other dialects: renews {@code n} (name, owner, token) triples sharing one lease; returns a count. The
     * {@code lock_name IN (…)} list repeats the names so that InnoDB reads (and row-locks) only those rows through
     * the primary key: a row-constructor {@code IN} alone may scan and lock the whole table.
     */
    String renewBatch(int n) {
        String now = dialect.nowMillis();
        return "UPDATE " + table + " SET expires_at = " + now + " + ? WHERE lock_name IN (" + marks(n) + ")"
                + " AND expires_at > " + now + " AND (lock_name, owner, token) IN (" + tuples(n) + ")";
    }

    /** The rows of {@code n} triples that are still held by them (after a partial renewal); names bound first. */
    String stillHeld(int n) {
        return "SELECT lock_name, owner, token FROM " + table + " WHERE lock_name IN (" + marks(n) + ")"
                + " AND expires_at > " + dialect.nowMillis() + " AND (lock_name, owner, token) IN (" + tuples(n) + ")";
    }

    private static String marks(int n) {
        return "?" + ", ?".repeat(n - 1);
    }

    private static String tuples(int n) {
        return "(?, ?, ?)" + ", (?, ?, ?)".repeat(n - 1);
    }
}
