package io.latchkey.jdbc;

import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Lists the counted primitives of one namespace for {@code latchkey inspect}, with the kinds of
 * {@link LockInfo#kind()}: a {@code "semaphore"} row (its free permits), a {@code "latch"} row per armed latch (its
 * count), a {@code "permit"} row per leased permit whose lease has not ended by the database's clock (owner = permit
 * id, its token and remaining lease; detail: permits available of the total), and a {@code "permit-semaphore"} row
 * for a permit-expirable semaphore with no permit out. Two SELECTs narrowed like the lock table's
 * ({@link LeaseTableInspector}); nothing when the tables were never created.
 */
final class CountTableInspector {

    private final JdbcRunner runner;
    private final CountTableSql sql;
    private final String namespace;
    private final String counts;
    private final String permits;

    CountTableInspector(JdbcRunner runner, CountTableSql sql, String namespace) {
        this.runner = runner;
        this.sql = sql;
        this.namespace = namespace;
        String now = sql.dialect.nowMillis();
        this.counts = "SELECT kind, count_name, count_value FROM " + sql.counts + " WHERE count_name LIKE ? ESCAPE '!'"
                + " ORDER BY count_name, kind";
        this.permits = "SELECT semaphore_name, permit_id, token, expires_at - " + now + " FROM " + sql.permits
                + " WHERE semaphore_name LIKE ? ESCAPE '!' AND expires_at > " + now
                + " ORDER BY semaphore_name, token";
    }

    List<LockInfo> list(String pattern) {
        String keyPrefix = namespace.isEmpty() ? "" : namespace + '\u001f';
        String like = LeaseTableInspector.escapeLike(keyPrefix + LeaseTableInspector.literalPrefix(pattern)) + '%';
        return runner.call("inspect semaphores and latches", c -> {
            if (!LeaseTableSchema.usable(c, sql.probeCounts)) {
                return List.of(); // never used: the tables are created on first use
            }
            Map<String, long[]> leased = new HashMap<>(); // permit semaphore -> {live permits}
            List<Object[]> permitData = new ArrayList<>();
            if (LeaseTableSchema.usable(c, sql.probePermits)) {
                try (ResultSet rs = query(c, permits, like)) {
                    while (rs.next()) {
                        String name = nameOf(rs.getString(1), keyPrefix, pattern);
                        if (name != null) {
                            leased.computeIfAbsent(name, n -> new long[1])[0]++;
                            permitData.add(new Object[] {name, rs.getString(2), rs.getLong(3), rs.getLong(4)});
                        }
                    }
                }
            }
            List<LockInfo> result = new ArrayList<>();
            try (ResultSet rs = query(c, counts, like)) {
                while (rs.next()) {
                    String name = nameOf(rs.getString(2), keyPrefix, pattern);
                    if (name == null) {
                        continue;
                    }
                    String kind = rs.getString(1);
                    long value = rs.getLong(3);
                    switch (kind) {
                        case CountTableSql.SEMAPHORE -> result.add(unowned(name, "semaphore",
                                value + " permits available"));
                        case CountTableSql.LATCH -> result.add(unowned(name, "latch", "count " + value));
                        case CountTableSql.PERMITS -> {
                            long out = leased.getOrDefault(name, new long[1])[0];
                            String detail = String.format("%d of %d permits available", value - out, value);
                            if (out == 0) {
                                result.add(unowned(name, "permit-semaphore", detail));
                            }
                            for (Object[] p : permitData) {
                                if (p[0].equals(name)) {
                                    result.add(new LockInfo(name, (String) p[1], 1, OptionalLong.of((Long) p[2]),
                                            Optional.of(Duration.ofMillis(Math.max(0, (Long) p[3]))),
                                            OptionalInt.empty(), "permit", detail));
                                }
                            }
                        }
                        default -> {
                            // a kind of a later version: not shown
                        }
                    }
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return result;
        });
    }

    private ResultSet query(Connection c, String select, String like) throws SQLException {
        PreparedStatement ps = c.prepareStatement(select);
        runner.limit(ps);
        ps.setString(1, like);
        ps.closeOnCompletion();
        return ps.executeQuery();
    }

    /** The name of a row key of this namespace that matches {@code pattern}, or {@code null}. */
    private static String nameOf(String key, String keyPrefix, String pattern) {
        String name = key.substring(keyPrefix.length());
        // Without a namespace, keys holding U+001F belong to some namespace (names cannot hold it).
        return name.indexOf('\u001f') >= 0 || !LockInspector.matches(pattern, name) ? null : name;
    }

    private static LockInfo unowned(String name, String kind, String detail) {
        return new LockInfo(name, LockInfo.NO_OWNER, 1, OptionalLong.empty(), Optional.empty(), OptionalInt.empty(),
                kind, detail);
    }
}
