package io.latchkey.jdbc;

/**
 * The statements of the lease-table lock for one dialect and table. Every decision (free or held, expired or
 * not, whose row it is) is taken inside one statement against the database's own clock, so that two clients
 * with skewed clocks can never both win.
 *
 * <p>A row is never deleted: releasing sets {@code owner} to {@code NULL}, so that {@code token}, the fencing
 * counter, keeps growing on every free-to-held transition across releases and expiries.
 */
final class LeaseTableSql {

    final SqlDialect dialect;
    final String table;
    /** Acquire: PostgreSQL returns the token (no row when busy); the others are followed by {@link #state}. */
    final String acquire;
    /** The row's owner, token, remaining lease (ms, database clock) and acquisition time. */
    final String state;
    /** Like {@link #state}, with how long the holder has held it (ms) instead of when it took it. */
    final String stateWithAge;
    /** Release by owner and token; PostgreSQL also notifies waiters (payload: the lock name). */
    final String release;
    /** PostgreSQL: flags a held row as awaited (so that its release notifies) and returns its state. */
    final String markWaiting;
    final String handOff;
    final String isLocked;
    final String forceUnlock;
    final String probe;

    LeaseTableSql(SqlDialect dialect, String table) {
        this.dialect = dialect;
        this.table = SqlIdentifiers.qualifiedName("table", table);
        String now = dialect.nowMillis();
        String free = "(l.owner IS NULL OR l.expires_at <= " + now + ")";
        switch (dialect) {
            case POSTGRESQL:
                acquire = "INSERT INTO " + table + " AS l (lock_name, owner, hold_count, token, expires_at, acquired_at)"
                        + " VALUES (?, ?, 1, 1, " + now + " + ?, " + now + ")"
                        + " ON CONFLICT (lock_name) DO UPDATE SET"
                        + " token = CASE WHEN " + free + " THEN l.token + 1 ELSE l.token END,"
                        + " hold_count = CASE WHEN " + free + " THEN 1 ELSE l.hold_count + 1 END,"
                        + " acquired_at = CASE WHEN " + free + " THEN EXCLUDED.acquired_at ELSE l.acquired_at END,"
                        + " waiting = CASE WHEN " + free + " THEN FALSE ELSE l.waiting END,"
                        + " owner = EXCLUDED.owner,"
                        + " expires_at = EXCLUDED.expires_at"
                        + " WHERE " + free + " OR l.owner = EXCLUDED.owner"
                        + " RETURNING l.token";
                // NOTIFY serializes committing transactions on a global queue lock: only send it when a waiter
                // has flagged the row (markWaiting); the next free-to-held acquire clears the flag.
                release = "WITH r AS (UPDATE " + table + " SET owner = NULL, hold_count = 0, expires_at = " + now
                        + " WHERE lock_name = ? AND owner = ? AND token = ? AND expires_at > " + now
                        + " RETURNING lock_name, waiting)"
                        + " SELECT CASE WHEN waiting THEN pg_notify(?, lock_name) END FROM r";
                markWaiting = "UPDATE " + table + " SET waiting = TRUE WHERE lock_name = ? AND owner IS NOT NULL"
                        + " AND expires_at > " + now + " RETURNING owner, token, expires_at - " + now + ", acquired_at";
                forceUnlock = "WITH r AS (UPDATE " + table + " SET owner = NULL, hold_count = 0, expires_at = " + now
                        + " WHERE lock_name = ? AND owner IS NOT NULL AND expires_at > " + now
                        + " RETURNING lock_name) SELECT pg_notify(?, lock_name) FROM r";
                break;
            case MYSQL:
                // MySQL assigns left to right and later expressions see earlier assignments: owner is assigned
                // after every column whose condition reads it, and expires_at last, keyed on the new owner.
                String mfree = "(owner IS NULL OR expires_at <= " + now + ")";
                acquire = "INSERT INTO " + table + " (lock_name, owner, hold_count, token, expires_at, acquired_at)"
                        + " VALUES (?, ?, 1, 1, " + now + " + ?, " + now + ")"
                        + " ON DUPLICATE KEY UPDATE"
                        + " token = IF(" + mfree + ", token + 1, token),"
                        + " hold_count = IF(" + mfree + ", 1, IF(owner = VALUES(owner), hold_count + 1, hold_count)),"
                        + " acquired_at = IF(" + mfree + ", VALUES(acquired_at), acquired_at),"
                        + " owner = IF(" + mfree + ", VALUES(owner), owner),"
                        + " expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at)";
                release = "UPDATE " + table + " SET owner = NULL, hold_count = 0, expires_at = " + now
                        + " WHERE lock_name = ? AND owner = ? AND token = ? AND expires_at > " + now;
                forceUnlock = "UPDATE " + table + " SET owner = NULL, hold_count = 0, expires_at = " + now
                        + " WHERE lock_name = ? AND owner IS NOT NULL AND expires_at > " + now;
                markWaiting = null;
                break;
            case H2:
            default:
                acquire = "MERGE INTO " + table + " l USING (VALUES (CAST(? AS VARCHAR(650)), CAST(? AS VARCHAR(255)),"
                        + " CAST(? AS BIGINT))) s(lock_name, owner, lease) ON l.lock_name = s.lock_name"
                        + " WHEN MATCHED AND " + free + " THEN UPDATE SET owner = s.owner, token = l.token + 1,"
                        + " hold_count = 1, expires_at = " + now + " + s.lease, acquired_at = " + now
                        + " WHEN MATCHED AND l.owner = s.owner THEN UPDATE SET hold_count = l.hold_count + 1,"
                        + " expires_at = " + now + " + s.lease"
                        + " WHEN NOT MATCHED THEN INSERT (lock_name, owner, hold_count, token, expires_at, acquired_at)"
                        + " VALUES (s.lock_name, s.owner, 1, 1, " + now + " + s.lease, " + now + ")";
                release = "UPDATE " + table + " SET owner = NULL, hold_count = 0, expires_at = " + now
                        + " WHERE lock_name = ? AND owner = ? AND token = ? AND expires_at > " + now;
                forceUnlock = "UPDATE " + table + " SET owner = NULL, hold_count = 0, expires_at = " + now
                        + " WHERE lock_name = ? AND owner IS NOT NULL AND expires_at > " + now;
                markWaiting = null;
                break;
        }
        state = "SELECT owner, token, expires_at - " + now + ", acquired_at FROM " + table + " WHERE lock_name = ?";
        stateWithAge = "SELECT owner, token, expires_at - " + now + ", " + now + " - acquired_at FROM " + table
                + " WHERE lock_name = ?";
        handOff = "UPDATE " + table + " SET owner = ?, token = token + 1, hold_count = 1, expires_at = " + now
                + " + ?, acquired_at = " + now
                + " WHERE lock_name = ? AND owner = ? AND token = ? AND expires_at > " + now;
        isLocked = "SELECT COUNT(*) FROM " + table + " WHERE lock_name = ? AND owner IS NOT NULL AND expires_at > "
                + now;
        probe = "SELECT lock_name, owner, hold_count, token, expires_at, acquired_at"
                + (dialect == SqlDialect.POSTGRESQL ? ", waiting" : "") + " FROM " + table + " WHERE 1 = 0";
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
        StringBuilder b = new StringBuilder(n * 3);
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "?" : ", ?");
        }
        return b.toString();
    }

    private static String tuples(int n) {
        StringBuilder b = new StringBuilder(n * 10);
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "(?, ?, ?)" : ", (?, ?, ?)");
        }
        return b.toString();
    }
}
