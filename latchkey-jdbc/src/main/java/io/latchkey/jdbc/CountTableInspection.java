package io.latchkey.jdbc;

import io.latchkey.core.CountKind;
import io.latchkey.spi.LockInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * for a permit-expirable semaphore with no permit out. The records of semaphore takes ({@link JdbcSemaphoreOps},
 * under a reserved name no semaphore has) are not listed. Two SELECTs narrowed like the lock table's
 * ({@link JdbcInspector}); nothing when the tables were never created.
 */
final class CountTableInspection {

    /** One live leased permit. */
    private record Leased(String permitId, long token, long remainingMillis) {
    }

    private final JdbcRunner runner;
    private final CountTableSql sql;
    private final String namespace;
    private final String counts;
    private final String permits;

    CountTableInspection(JdbcRunner runner, CountTableSql sql, String namespace) {
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
        String keyPrefix = LeaseTableRows.keyPrefix(namespace);
        String like = JdbcInspector.like(keyPrefix, pattern);
        return runner.call("inspect semaphores and latches", c -> {
            if (!LeaseTableSchema.usable(c, sql.probeCounts)) {
                return List.of(); // never used: the tables are created on first use
            }
            List<LockInfo> result = new ArrayList<>();
            Map<String, Long> permitTotals = new LinkedHashMap<>();
            try (ResultSet rs = query(c, counts, like)) {
                while (rs.next()) {
                    String name = JdbcInspector.nameOf(rs.getString(2), keyPrefix, pattern);
                    long value = rs.getLong(3);
                    if (name == null) {
                        continue;
                    }
                    CountKind kind = CountKind.ofLabel(rs.getString(1));
                    if (kind == null) {
                        continue; // a kind of a later version: not shown
                    }
                    switch (kind) {
                        case SEMAPHORE -> result.add(unowned(name, "semaphore", value + " permits available"));
                        case LATCH -> result.add(unowned(name, "latch", "count " + value));
                        case PERMITS -> permitTotals.put(name, value);
                    }
                }
            }
            Map<String, List<Leased>> leased = new HashMap<>();
            if (!permitTotals.isEmpty() && LeaseTableSchema.usable(c, sql.probePermits)) {
                try (ResultSet rs = query(c, permits, like)) {
                    while (rs.next()) {
                        String name = JdbcInspector.nameOf(rs.getString(1), keyPrefix, pattern);
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

    private static LockInfo unowned(String name, String kind, String detail) {
        return new LockInfo(name, LockInfo.NO_OWNER, 1, OptionalLong.empty(), Optional.empty(), OptionalInt.empty(),
                kind, detail);
    }
}
