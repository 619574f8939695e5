package io.latchkey.jdbc;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import java.sql.Array;
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
 * (see {@link LeaseTableSql} for the statements, all decided on the database's clock), binds the parameters and
 * reads the results. No waiting, no threads: the engine decides when to try, {@link JdbcLockOps} on which
 * connection.
 */
final class LeaseTableRows {

    private static final Logger log = LoggerFactory.getLogger(LeaseTableRows.class);
    private static final int RENEW_CHUNK = 300;

    private final JdbcRunner runner;
    private final LeaseTableSql sql;
    private final String namespace;
    private final TimeSource time;
    private final String channel;
    /** The client's name, written with each hold if the table has the column; set before the first acquire. */
    String clientName = io.latchkey.ClientOptions.defaults().clientName();

    LeaseTableRows(JdbcRunner runner, LeaseTableSql sql, String namespace, TimeSource time, String channel) {
        this.runner = runner;
        this.sql = sql;
        this.namespace = namespace;
        this.time = time;
        this.channel = channel;
    }

    /**
     * The row key of {@code name}: the name itself without a namespace, else namespace, U+001F, name. Neither may
     * contain control characters, so no name of one namespace can equal a key of another ({@code "a/" + "x"} is
     * not {@code "" + "a/x"}); U+001F rather than NUL because PostgreSQL text cannot hold NUL.
     */
    String key(String name) {
        return keyPrefix(namespace) + name;
    }

    /**
     * What every row key of {@code namespace} starts with: empty for no namespace, else the namespace and U+001F;
     * the key of a name is this prefix and the name. Every table of the backend (locks, counts, permits) and the
     * advisory-lock keys use it.
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
        try {
            if (sql.dialect == SqlDialect.POSTGRESQL) {
                // Both statements in one round trip (one Sync: one implicit transaction); the second sees the
                // first's row and draws the token only if the first inserted it (token UNTOKENED).
                try (PreparedStatement ps = c.prepareStatement(sql.acquire + "; " + sql.tokenize)) {
                    runner.limit(ps);
                    ps.setString(1, key);
                    ps.setString(2, req.ownerId());
                    ps.setLong(3, req.leaseMillis());
                    int next = bindClient(ps, 4, req);
                    ps.setString(next, key);
                    ps.setString(next + 1, req.ownerId());
                    ps.execute();
                    long token = -1;
                    try (ResultSet rs = ps.getResultSet()) {
                        if (rs.next()) {
                            token = rs.getLong(1);
                        }
                    }
                    long drawn = -1;
                    if (ps.getMoreResults()) {
                        try (ResultSet rs = ps.getResultSet()) {
                            if (rs.next()) {
                                drawn = rs.getLong(1);
                            }
                        }
                    }
                    if (token > LeaseTableSql.UNTOKENED) {
                        return Outcome.acquired(token, sentAt);
                    }
                    if (token == LeaseTableSql.UNTOKENED) {
                        return drawn > 0 ? Outcome.acquired(drawn, sentAt) : Outcome.busy(0, true);
                    }
                }
                return busy(c, key);
            }
            try (PreparedStatement ps = c.prepareStatement(sql.acquire)) {
                runner.limit(ps);
                ps.setString(1, key);
                ps.setString(2, req.ownerId());
                ps.setLong(3, req.leaseMillis());
                bindClient(ps, 4, req);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(sql.tokenize)) {
                runner.limit(ps);
                ps.setString(1, key);
                ps.setString(2, req.ownerId());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(sql.state)) {
                runner.limit(ps);
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Outcome.busy(0, true);
                    }
                    if (req.ownerId().equals(rs.getString(1)) && rs.getLong(3) > 0) {
                        long token = rs.getLong(2);
                        // Untokened: our tokenize lost the row and it was taken again by us meanwhile; try again.
                        return token != LeaseTableSql.UNTOKENED ? Outcome.acquired(token, sentAt)
                                : Outcome.busy(0, true);
                    }
                    return Outcome.busy(Math.max(0, rs.getLong(3)), false);
                }
            }
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

    private Outcome busy(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.markWaiting)) {
            runner.limit(ps);
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return Outcome.busy(Math.max(0, rs.getLong(3)), false);
                }
                return Outcome.busy(0, true);
            }
        }
    }

    /** Deletes the grant's row (on PostgreSQL notifying the release); whether it was still the grant's. */
    boolean release(Connection c, String key, Grant grant) throws SQLException {
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
        return released;
    }

    /** Extends the leases of {@code all}, in chunks; returns the grants whose rows were no longer theirs. */
    Set<Grant> renew(Connection c, List<Grant> all) throws SQLException {
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

    /** Passes the row from {@code from} to {@code request}'s owner with a new token; {@code null} if not held by it. */
    Grant handOff(Connection c, String key, Grant from, AcquireRequest request) throws SQLException {
        long sentAt = time.nanoTime();
        if (sql.dialect == SqlDialect.POSTGRESQL) {
            try (PreparedStatement ps = c.prepareStatement(sql.handOff)) {
                runner.limit(ps);
                ps.setString(1, request.ownerId());
                ps.setLong(2, request.leaseMillis());
                int i = bindAttempt(ps, 3, request);
                ps.setString(i, key);
                ps.setString(i + 1, from.ownerId());
                ps.setLong(i + 2, from.fencingToken());
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
            int i = bindAttempt(ps, 4, request);
            ps.setString(i, key);
            ps.setString(i + 1, from.ownerId());
            ps.setLong(i + 2, from.fencingToken());
            return ps.executeUpdate() == 1 ? new Grant(request, token, sentAt, null) : null;
        }
    }

    /** Binds {@code req}'s attempt id at {@code index} if the table has its column; the next parameter's index. */
    private int bindAttempt(PreparedStatement ps, int index, AcquireRequest req) throws SQLException {
        if (!sql.attemptColumn) {
            return index;
        }
        ps.setString(index, req.attemptId());
        return index + 1;
    }

    boolean isLocked(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.isLocked)) {
            runner.limit(ps);
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    /** Deletes the row whoever holds it (on PostgreSQL notifying the release); whether a live hold was deleted. */
    boolean forceUnlock(Connection c, String key) throws SQLException {
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
        return released;
    }

    /**
     * Binds the client's name at {@code index} and then {@code req}'s attempt id, each if the table has its column;
     * the next parameter's index.
     */
    private int bindClient(PreparedStatement ps, int index, AcquireRequest req) throws SQLException {
        if (sql.clientColumn) {
            ps.setString(index++, clientName);
        }
        if (sql.attemptColumn) {
            ps.setString(index++, req.attemptId());
        }
        return index;
    }

    /**
     * Deletes the row {@code req}'s attempt wrote, by owner and attempt id (on PostgreSQL notifying flagged waiters,
     * as a release does); whether it deleted one. Never a later hold of the owner: its acquire wrote another id.
     */
    boolean cleanUp(Connection c, String key, AcquireRequest req) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.cleanUp)) {
            runner.limit(ps);
            ps.setString(1, key);
            ps.setString(2, req.ownerId());
            ps.setString(3, req.attemptId());
            if (sql.dialect == SqlDialect.POSTGRESQL) {
                ps.setString(4, channel);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * Who holds row {@code key}: owner, token, remaining lease (database clock), since when (database clock) and the
     * client's name ({@code unknown} for a row written without it); {@code null} if free. One SELECT.
     */
    LockHolder holder(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.holder)) {
            runner.limit(ps);
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getString(1) != null && rs.getLong(3) > 0) {
                    String client = rs.getString(5);
                    return new LockHolder(rs.getString(1), client == null ? LockHolder.UNKNOWN_CLIENT : client,
                            Optional.of(Instant.ofEpochMilli(rs.getLong(4))), Optional.of(Duration.ofMillis(rs.getLong(3))),
                            OptionalLong.of(rs.getLong(2)), OptionalInt.empty());
                }
                return null;
            }
        }
    }

    /**
     * Deletes expired rows in batches of {@value LeaseTableSql#REAP_BATCH} until none is left or the statement
     * deleted fewer (at most 100 batches); returns how many.
     */
    long reapExpired(Connection c) throws SQLException {
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
        return total;
    }

    /** The outcome of one acquire statement. */
    static final class Outcome {
        final long token;
        final long sentAt;
        final long holderRemainingMillis;
        final boolean retryNow;

        private Outcome(long token, long sentAt, long holderRemainingMillis, boolean retryNow) {
            this.token = token;
            this.sentAt = sentAt;
            this.holderRemainingMillis = holderRemainingMillis;
            this.retryNow = retryNow;
        }

        static Outcome acquired(long token, long sentAt) {
            return new Outcome(token, sentAt, 0, false);
        }

        static Outcome busy(long holderRemainingMillis, boolean retryNow) {
            return new Outcome(-1, 0, holderRemainingMillis, retryNow);
        }
    }
}
