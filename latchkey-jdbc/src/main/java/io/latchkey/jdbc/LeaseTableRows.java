package io.latchkey.jdbc;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL of the lease-table lock: each method runs the statements of one operation on a connection it is given
 * (see {@link LeaseTableSql} for the statements, all decided on the database's clock). No waiting, no threads: the
 * engine decides when to try, {@link JdbcLockOps} on which connection.
 */
final class LeaseTableRows {

    private static final Logger log = LoggerFactory.getLogger(LeaseTableRows.class);
    private static final int RENEW_CHUNK = 300;

    private final JdbcRunner runner;
    private final LeaseTableSql sql;
    private final String namespace;
    private final TimeSource time;
    private final String channel;
    private final boolean postgres;
    /** The client's name, written with each hold if the table has the column; set before the first acquire. */
    String clientName = io.latchkey.ClientOptions.defaults().clientName();

    LeaseTableRows(JdbcRunner runner, LeaseTableSql sql, String namespace, TimeSource time, String channel) {
        this.runner = runner;
        this.sql = sql;
        this.namespace = namespace;
        this.time = time;
        this.channel = channel;
        this.postgres = sql.dialect == SqlDialect.POSTGRESQL;
    }

    /** The row key of {@code name}: {@link #keyPrefix} and the name. */
    String key(String name) {
        return keyPrefix(namespace) + name;
    }

    /**
     * What every row key of {@code namespace} starts with: empty for no namespace, else the namespace and U+001F.
     * Neither may contain control characters, so no name of one namespace can equal a key of another ({@code "a/" +
     * "x"} is not {@code "" + "a/x"}); U+001F rather than NUL because PostgreSQL text cannot hold NUL. Every table of
     * the backend (locks, counts, permits) and the advisory-lock keys use it.
     */
    static String keyPrefix(String namespace) {
        return namespace.isEmpty() ? "" : namespace + '\u001f';
    }

    /**
     * One acquire attempt of row {@code key}: acquired with a token, or busy (with the holder's remaining lease).
     * A row taken free is written untokened first and given its token by a second statement, so that the token is
     * drawn after the row is ours (the argument is in {@link LeaseTableSql}).
     */
    Outcome tryAcquire(Connection c, String key, AcquireRequest req) throws SQLException {
        long sentAt = time.nanoTime();
        List<Object> acquire = new ArrayList<>(List.of(key, req.ownerId(), req.leaseMillis()));
        if (sql.clientColumn) {
            acquire.add(clientName);
        }
        if (sql.attemptColumn) {
            acquire.add(req.attemptId());
        }
        try {
            if (postgres) {
                // Both statements in one round trip (one Sync: one implicit transaction); the second sees the
                // first's row and draws the token only if the first inserted it (token UNTOKENED).
                acquire.add(key);
                acquire.add(req.ownerId());
                long token = -1;
                long drawn = -1;
                try (PreparedStatement ps = runner.prepare(c, sql.acquire + "; " + sql.tokenize, acquire.toArray())) {
                    ps.execute();
                    token = firstLong(ps.getResultSet());
                    drawn = ps.getMoreResults() ? firstLong(ps.getResultSet()) : -1;
                }
                if (token > LeaseTableSql.UNTOKENED) {
                    return Outcome.acquired(token, sentAt);
                }
                if (token == LeaseTableSql.UNTOKENED) {
                    return drawn > 0 ? Outcome.acquired(drawn, sentAt) : Outcome.busy(0, true);
                }
                return readBusy(c, sql.markWaiting, key, null);
            }
            runner.update(c, sql.acquire, acquire.toArray());
            runner.update(c, sql.tokenize, key, req.ownerId());
            return readBusy(c, sql.state, key, req).withSentAt(sentAt);
        } catch (SQLException e) {
            String state = e.getSQLState();
            // Two first acquires of a new name racing on MERGE (H2), or a deadlock victim (InnoDB): try again.
            if (state != null && (state.startsWith("23") || state.startsWith("40"))) {
                log.debug("acquire of {} raced ({}), retrying", key, state);
                return Outcome.busy(0, true);
            }
            throw e;
        }
    }

    private static long firstLong(ResultSet rs) throws SQLException {
        try (rs) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    /**
     * Reads the row's owner, token and remaining lease ({@code query}); acquired if {@code mine} is given and the
     * live row is its owner's with a token. No row, or one still untokened, is a race: look again at once.
     */
    private Outcome readBusy(Connection c, String query, String key, AcquireRequest mine) throws SQLException {
        try (PreparedStatement ps = runner.prepare(c, query, key); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Outcome.busy(0, true);
            }
            if (mine != null && mine.ownerId().equals(rs.getString(1)) && rs.getLong(3) > 0) {
                long token = rs.getLong(2);
                // Untokened: our tokenize lost the row and it was taken again by us meanwhile; try again.
                return token != LeaseTableSql.UNTOKENED ? Outcome.acquired(token, 0) : Outcome.busy(0, true);
            }
            return Outcome.busy(Math.max(0, rs.getLong(3)), false);
        }
    }

    /** Deletes the grant's row (on PostgreSQL notifying the release); whether it was still the grant's. */
    boolean release(Connection c, String key, Grant grant) throws SQLException {
        return deleted(c, sql.release, sql.releaseExpired, key, grant.ownerId(), grant.fencingToken());
    }

    /** Deletes the row whoever holds it (on PostgreSQL notifying the release); whether a live hold was deleted. */
    boolean forceUnlock(Connection c, String key) throws SQLException {
        return deleted(c, sql.forceUnlock, sql.forceUnlockExpired, key);
    }

    /**
     * Runs a delete of {@code params}; PostgreSQL's form also takes the channel and returns one row with whether the
     * lease was live. The others delete a live row and, if there was none, the expired row by {@code expired}: a row
     * whose lease ran out and that nobody took over must not stay behind.
     */
    private boolean deleted(Connection c, String delete, String expired, Object... params) throws SQLException {
        if (!postgres) {
            if (runner.update(c, delete, params) > 0) {
                return true;
            }
            runner.update(c, expired, params);
            return false;
        }
        Object[] all = java.util.Arrays.copyOf(params, params.length + 1);
        all[params.length] = channel;
        try (PreparedStatement ps = runner.prepare(c, delete, all); ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** Extends the leases of {@code all}, in chunks; returns the grants whose rows were no longer theirs. */
    Set<Grant> renew(Connection c, List<Grant> all) throws SQLException {
        Set<Grant> lost = new HashSet<>(all);
        for (int from = 0; from < all.size(); from += RENEW_CHUNK) {
            List<Grant> chunk = all.subList(from, Math.min(all.size(), from + RENEW_CHUNK));
            if (postgres) {
                renewPostgres(c, chunk, lost);
            } else {
                renewGeneric(c, chunk, lost);
            }
        }
        return lost;
    }

    private void renewPostgres(Connection c, List<Grant> chunk, Set<Grant> lost) throws SQLException {
        try (PreparedStatement ps = runner.prepare(c, sql.renewPostgres(),
                c.createArrayOf("text", chunk.stream().map(g -> key(g.name())).toArray(String[]::new)),
                c.createArrayOf("text", chunk.stream().map(Grant::ownerId).toArray(String[]::new)),
                c.createArrayOf("bigint", chunk.stream().map(Grant::fencingToken).toArray(Long[]::new)),
                c.createArrayOf("bigint", chunk.stream().map(Grant::leaseMillis).toArray(Long[]::new)))) {
            stillHeld(ps, chunk, lost);
        }
    }

    private void renewGeneric(Connection c, List<Grant> chunk, Set<Grant> lost) throws SQLException {
        Map<Long, List<Grant>> byLease = new LinkedHashMap<>();
        for (Grant g : chunk) {
            byLease.computeIfAbsent(g.leaseMillis(), k -> new ArrayList<>()).add(g);
        }
        for (Map.Entry<Long, List<Grant>> e : byLease.entrySet()) {
            List<Grant> gs = e.getValue();
            List<Object> params = new ArrayList<>(gs.stream().map(g -> key(g.name())).toList());
            for (Grant g : gs) {
                params.add(key(g.name()));
                params.add(g.ownerId());
                params.add(g.fencingToken());
            }
            params.add(0, e.getKey());
            if (runner.update(c, sql.renewBatch(gs.size()), params.toArray()) == gs.size()) {
                lost.removeAll(gs);
                continue;
            }
            // Some were lost: one more read tells which (only when something went wrong).
            params.remove(0);
            try (PreparedStatement ps = runner.prepare(c, sql.stillHeld(gs.size()), params.toArray())) {
                stillHeld(ps, gs, lost);
            }
        }
    }

    /** Removes from {@code lost} the grants of {@code gs} whose (name, owner, token) the query returns. */
    private void stillHeld(PreparedStatement ps, List<Grant> gs, Set<Grant> lost) throws SQLException {
        Map<String, Grant> byKey = new HashMap<>();
        for (Grant g : gs) {
            byKey.put(key(g.name()) + '\u0000' + g.ownerId() + '\u0000' + g.fencingToken(), g);
        }
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Grant g = byKey.get(rs.getString(1) + '\u0000' + rs.getString(2) + '\u0000' + rs.getLong(3));
                if (g != null) {
                    lost.remove(g);
                }
            }
        }
    }

    /** Passes the row from {@code from} to {@code request}'s owner with a new token; {@code null} if not held by it. */
    Grant handOff(Connection c, String key, Grant from, AcquireRequest request) throws SQLException {
        long sentAt = time.nanoTime();
        List<Object> params = new ArrayList<>(List.of(request.ownerId()));
        // A new token from the sequence, not token + 1: the next holder after this row's deletion takes the
        // sequence's next value, which must be above this one. PostgreSQL draws it in the statement.
        long token = postgres ? -1 : runner.queryLong(c, sql.nextTokenQuery);
        if (!postgres) {
            params.add(token);
        }
        params.add(request.leaseMillis());
        if (sql.attemptColumn) {
            params.add(request.attemptId());
        }
        params.addAll(List.of(key, from.ownerId(), from.fencingToken()));
        if (postgres) {
            Long drawn = runner.queryLong(c, sql.handOff, params.toArray());
            return drawn == null ? null : new Grant(request, drawn, sentAt, null);
        }
        return runner.update(c, sql.handOff, params.toArray()) == 1 ? new Grant(request, token, sentAt, null) : null;
    }

    boolean isLocked(Connection c, String key) throws SQLException {
        Long n = runner.queryLong(c, sql.isLocked, key);
        return n != null && n > 0;
    }

    /**
     * Deletes the row {@code req}'s attempt wrote, by owner and attempt id (on PostgreSQL notifying flagged waiters,
     * as a release does); whether it deleted one. Never a later hold of the owner: its acquire wrote another id.
     */
    boolean cleanUp(Connection c, String key, AcquireRequest req) throws SQLException {
        if (!postgres) {
            return runner.update(c, sql.cleanUp, key, req.ownerId(), req.attemptId()) > 0;
        }
        try (PreparedStatement ps = runner.prepare(c, sql.cleanUp, key, req.ownerId(), req.attemptId(), channel);
             ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /**
     * Who holds row {@code key}: owner, token, remaining lease (database clock), since when (database clock) and the
     * client's name ({@code unknown} for a row written without it); {@code null} if free. One SELECT.
     */
    LockHolder holder(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = runner.prepare(c, sql.holder, key); ResultSet rs = ps.executeQuery()) {
            if (rs.next() && rs.getString(1) != null && rs.getLong(3) > 0) {
                String client = rs.getString(5);
                return new LockHolder(rs.getString(1), client == null ? LockHolder.UNKNOWN_CLIENT : client,
                        Optional.of(Instant.ofEpochMilli(rs.getLong(4))), Optional.of(Duration.ofMillis(rs.getLong(3))),
                        OptionalLong.of(rs.getLong(2)), OptionalInt.empty());
            }
            return null;
        }
    }

    /** Deletes expired rows ({@link JdbcRunner#inBatches}); returns how many. */
    long reapExpired(Connection c) throws SQLException {
        return JdbcRunner.inBatches(c, LeaseTableSql.REAP_BATCH,
                x -> postgres ? runner.queryLong(x, sql.reap, channel) : runner.update(x, sql.reap));
    }

    /** The outcome of one acquire statement: a token (or -1 when busy) and when it was sent, or busy. */
    record Outcome(long token, long sentAt, long holderRemainingMillis, boolean retryNow) {
        static Outcome acquired(long token, long sentAt) {
            return new Outcome(token, sentAt, 0, false);
        }

        static Outcome busy(long holderRemainingMillis, boolean retryNow) {
            return new Outcome(-1, 0, holderRemainingMillis, retryNow);
        }

        Outcome withSentAt(long at) {
            return token < 0 ? this : acquired(token, at);
        }
    }
}
