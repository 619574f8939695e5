package io.latchkey.jdbc;

import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.time.Duration;

/**
 * Lists the held locks of a lease table for {@code latchkey inspect}: one SELECT of the rows whose lease has not
 * run out by the <em>database's</em> clock, which also computes the remaining lease, so a client with a skewed
 * clock shows what the database will decide. The namespace and the literal start of the pattern (up to its first
 * wildcard) narrow the SELECT to a primary-key range; the glob itself is then applied with
 * {@link LockInspector#matches}, so every backend agrees on what a pattern means.
 *
 * <p>Fields: {@code owner} is the row's owner ({@code <clientId>:<thread or lease id>}); {@code holdCount} the
 * row's hold count; {@code fencingToken} the row's token, the one the holder was granted (0 for the instant between
 * an acquire's two statements, see {@link LeaseTableSql#UNTOKENED}, or until the lease runs out if its client died
 * there); {@code remainingLease}
 * {@code expires_at} minus the database's now; {@code waiters} is empty: waiters poll (or listen) and leave no
 * trace in the table.
 */
final class JdbcInspector {

    private static final char ESCAPE = '!';

    private final JdbcRunner runner;
    private final String select;
    private final String namespace;

    JdbcInspector(JdbcRunner runner, LeaseTableSql sql, String namespace) {
        this.runner = runner;
        this.namespace = namespace;
        String now = sql.dialect.nowMillis();
        this.select = "SELECT lock_name, owner, hold_count, token, expires_at - " + now + ", acquired_at, "
                + (sql.clientColumn ? "client_name" : "NULL") + " FROM " + sql.table
                + " WHERE owner IS NOT NULL AND expires_at > " + now + " AND lock_name LIKE ? ESCAPE '" + ESCAPE
                + "' ORDER BY lock_name";
    }

    List<LockInfo> list(String pattern) {
        String keyPrefix = LeaseTableRows.keyPrefix(namespace);
        String like = like(keyPrefix, pattern);
        return runner.call("inspect locks", c -> {
            List<LockInfo> result = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(select)) {
                runner.limit(ps);
                ps.setString(1, like);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String name = nameOf(rs.getString(1), keyPrefix, pattern);
                        if (name == null) {
                            continue;
                        }
                        result.add(new LockInfo(name, rs.getString(2), Math.max(1, rs.getInt(3)),
                                OptionalLong.of(rs.getLong(4)), Optional.of(Duration.ofMillis(Math.max(0, rs.getLong(5)))),
                                OptionalInt.empty()).withHolder(rs.getString(7) == null
                                        ? io.latchkey.LockHolder.UNKNOWN_CLIENT : rs.getString(7),
                                        Optional.of(java.time.Instant.ofEpochMilli(rs.getLong(6)))));
                    }
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return result;
        });
    }

    /** The {@code LIKE} argument that narrows a SELECT to the row keys under {@code keyPrefix} that may match. */
    static String like(String keyPrefix, String pattern) {
        return escapeLike(keyPrefix + literalPrefix(pattern)) + '%';
    }

    /** The name of a row key under {@code keyPrefix} that matches {@code pattern}, or {@code null}. */
    static String nameOf(String key, String keyPrefix, String pattern) {
        String name = key.substring(keyPrefix.length());
        // Without a namespace, keys holding U+001F belong to some namespace (names cannot hold it).
        return name.indexOf('\u001f') >= 0 || !LockInspector.matches(pattern, name) ? null : name;
    }

    /** What every name matching {@code pattern} starts with: the pattern up to its first wildcard. */
    static String literalPrefix(String pattern) {
        if (pattern == null) {
            return "";
        }
        int end = 0;
        while (end < pattern.length() && pattern.charAt(end) != '*' && pattern.charAt(end) != '?') {
            end++;
        }
        return pattern.substring(0, end);
    }

    static String escapeLike(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' || c == '_' || c == ESCAPE) {
                out.append(ESCAPE);
            }
            out.append(c);
        }
        return out.toString();
    }
}
