package io.latchkey.jdbc;

import io.latchkey.LockHolder;
import io.latchkey.core.CountKind;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Lists a namespace's locks and counted primitives for {@code latchkey inspect}, with SELECTs that compute the
 * remaining leases on the <em>database's</em> clock, so a client with a skewed clock shows what the database will
 * decide. The namespace and the literal start of the pattern (up to its first wildcard) narrow each SELECT to a
 * primary-key range; the glob itself is then applied with {@link LockInspector#matches}, so every backend agrees on
 * what a pattern means.
 *
 * <p>Locks: the rows whose lease has not run out; {@code owner} is the row's owner ({@code <clientId>:<thread or
 * lease id>}), {@code holdCount} the row's hold count, {@code fencingToken} the row's token (0 for the instant
 * between an acquire's two statements, see {@link LeaseTableSql#UNTOKENED}, or until the lease runs out if its client
 * died there); {@code waiters} is empty: waiters leave no trace in the table.
 *
 * <p>Counted primitives, with the kinds of {@link LockInfo#kind()}: a {@code "semaphore"} row (its free permits), a
 * {@code "latch"} row per armed latch (its count), a {@code "permit"} row per leased permit whose lease has not ended
 * (owner = permit id, its token and remaining lease; detail: permits available of the total), and a
 * {@code "permit-semaphore"} row for a permit-expirable semaphore with no permit out. The records of semaphore takes
 * (under a reserved name no semaphore has) are not listed; nothing when the tables were never created.
 */
final class JdbcInspector {

    private static final char ESCAPE = '!';

    /** One live leased permit. */
    private record Leased(String permitId, long token, long remainingMillis) {
    }

    private final JdbcRunner runner;
    private final String namespace;
    private final String locks;
    private final CountTableSql countSql;
    private final String counts;
    private final String permits;

    JdbcInspector(JdbcRunner runner, LeaseTableSql sql, CountTableSql countSql, String namespace) {
        this.runner = runner;
        this.namespace = namespace;
        this.countSql = countSql;
        String now = sql.dialect.nowMillis();
        String like = " LIKE ? ESCAPE '" + ESCAPE + "'";
        this.locks = "SELECT lock_name, owner, hold_count, token, expires_at - " + now + ", acquired_at, "
                + (sql.clientColumn ? "client_name" : "NULL") + " FROM " + sql.table
                + " WHERE owner IS NOT NULL AND expires_at > " + now + " AND lock_name" + like + " ORDER BY lock_name";
        this.counts = "SELECT kind, count_name, count_value FROM " + countSql.counts + " WHERE count_name" + like
                + " ORDER BY count_name, kind";
        this.permits = "SELECT semaphore_name, permit_id, token, expires_at - " + now + " FROM " + countSql.permits
                + " WHERE semaphore_name" + like + " AND expires_at > " + now + " ORDER BY semaphore_name, token";
    }

    List<LockInfo> list(String pattern) {
        String keyPrefix = LeaseTableRows.keyPrefix(namespace);
        String like = escapeLike(keyPrefix + literalPrefix(pattern)) + '%';
        List<LockInfo> result = runner.call("inspect locks", c -> {
            List<LockInfo> out = new ArrayList<>();
            try (PreparedStatement ps = runner.prepare(c, locks, like); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = nameOf(rs.getString(1), keyPrefix, pattern);
                    if (name != null) {
                        out.add(new LockInfo(name, rs.getString(2), Math.max(1, rs.getInt(3)),
                                OptionalLong.of(rs.getLong(4)), Optional.of(Duration.ofMillis(Math.max(0, rs.getLong(5)))),
                                OptionalInt.empty()).withHolder(rs.getString(7) == null
                                        ? LockHolder.UNKNOWN_CLIENT : rs.getString(7),
                                        Optional.of(Instant.ofEpochMilli(rs.getLong(6)))));
                    }
                }
            }
            return commit(c, out);
        });
        result.addAll(runner.call("inspect semaphores and latches", c -> counted(c, like, keyPrefix, pattern)));
        return result;
    }

    private List<LockInfo> counted(Connection c, String like, String keyPrefix, String pattern) throws SQLException {
        if (!LeaseTableSchema.usable(c, countSql.probeCounts)) {
            return List.of(); // never used: the tables are created on first use
        }
        List<LockInfo> result = new ArrayList<>();
        Map<String, Long> permitTotals = new LinkedHashMap<>();
        try (PreparedStatement ps = runner.prepare(c, counts, like); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String name = nameOf(rs.getString(2), keyPrefix, pattern);
                CountKind kind = CountKind.ofLabel(rs.getString(1)); // null: a kind of a later version, not shown
                long value = rs.getLong(3);
                if (name == null || kind == null) {
                    continue;
                }
                switch (kind) {
                    case SEMAPHORE -> result.add(unowned(name, "semaphore", value + " permits available"));
                    case LATCH -> result.add(unowned(name, "latch", "count " + value));
                    case PERMITS -> permitTotals.put(name, value);
                }
            }
        }
        Map<String, List<Leased>> leased = new HashMap<>();
        if (!permitTotals.isEmpty() && LeaseTableSchema.usable(c, countSql.probePermits)) {
            try (PreparedStatement ps = runner.prepare(c, permits, like); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = nameOf(rs.getString(1), keyPrefix, pattern);
                    if (name != null) {
                        leased.computeIfAbsent(name, n -> new ArrayList<>())
                                .add(new Leased(rs.getString(2), rs.getLong(3), rs.getLong(4)));
                    }
                }
            }
        }
        permitTotals.forEach((name, total) -> {
            List<Leased> out = leased.getOrDefault(name, List.of());
            String detail = String.format("%d of %d permits available", total - out.size(), total);
            if (out.isEmpty()) {
                result.add(unowned(name, "permit-semaphore", detail));
            }
            for (Leased p : out) {
                result.add(new LockInfo(name, p.permitId(), 1, OptionalLong.of(p.token()),
                        Optional.of(Duration.ofMillis(Math.max(0, p.remainingMillis()))), OptionalInt.empty(),
                        "permit", detail));
            }
        });
        return commit(c, result);
    }

    private static <T> T commit(Connection c, T result) throws SQLException {
        if (!c.getAutoCommit()) {
            c.commit();
        }
        return result;
    }

    private static LockInfo unowned(String name, String kind, String detail) {
        return new LockInfo(name, LockInfo.NO_OWNER, 1, OptionalLong.empty(), Optional.empty(), OptionalInt.empty(),
                kind, detail);
    }

    /** The name of a row key under {@code keyPrefix} that matches {@code pattern}, or {@code null}. */
    static String nameOf(String key, String keyPrefix, String pattern) {
        String name = key.substring(keyPrefix.length());
        // Without a namespace, keys holding U+001F belong to some namespace (names cannot hold it).
        return name.indexOf('\u001f') >= 0 || !LockInspector.matches(pattern, name) ? null : name;
    }

    /** What every name matching {@code pattern} starts with: the pattern up to its first wildcard. */
    static String literalPrefix(String pattern) {
        return pattern == null ? "" : pattern.split("[*?]", 2)[0];
    }

    /** {@code text} as a {@code LIKE} literal: its wildcards and the escape character escaped. */
    static String escapeLike(String text) {
        return text.replaceAll("[%_" + ESCAPE + "]", ESCAPE + "$0");
    }
}
