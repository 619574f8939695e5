package io.latchkey.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The flash-sale tables: {@code seckill_good(id, stockCount, version)}, {@code seckill_order} and, for the
 * segmented strategy, {@code seckill_good_segment}. Every strategy run sells its own good (a fresh id), so runs do
 * not reset each other's rows and a shared database keeps whatever else it holds.
 *
 * <p>The statements are plain ones, portable across H2, PostgreSQL and MariaDB.
 */
final class FlashSaleDatabase {

    private static final String[] SCHEMA = {
        "create table if not exists seckill_good (id bigint primary key, stockCount int not null, "
                + "version bigint not null)",
        "create table if not exists seckill_order (good_id bigint not null, buyer int not null, "
                + "primary key (good_id, buyer))",
        "create table if not exists seckill_good_segment (good_id bigint not null, segment int not null, "
                + "stockCount int not null, primary key (good_id, segment))",
    };

    private final String url;

    FlashSaleDatabase(String url) {
        this.url = url;
    }

    String url() {
        return url;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    void createSchema() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String ddl : SCHEMA) {
                s.execute(ddl);
            }
        }
    }

    /** Puts good {@code id} on sale with {@code stock} items, optionally split evenly over {@code segments} rows. */
    void stockUp(long id, int stock, int segments) throws SQLException {
        try (Connection c = connect()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into seckill_good (id, stockCount, version) values (?, ?, 0)")) {
                ps.setLong(1, id);
                ps.setInt(2, stock);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into seckill_good_segment (good_id, segment, stockCount) values (?, ?, ?)")) {
                for (int s = 0; s < segments; s++) {
                    ps.setLong(1, id);
                    ps.setInt(2, s);
                    ps.setInt(3, stock / segments + (s < stock % segments ? 1 : 0));
                    ps.executeUpdate();
                }
            }
        }
    }

    int orders(long goodId) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("select count(*) from seckill_order where good_id = ?")) {
            ps.setLong(1, goodId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    int stock(long goodId, boolean segmented) throws SQLException {
        String sql = segmented ? "select sum(stockCount) from seckill_good_segment where good_id = ?"
                : "select stockCount from seckill_good where id = ?";
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, goodId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** Removes the rows of the given goods (on a user's database; the embedded one is deleted whole). */
    void cleanUp(Iterable<Long> goodIds) throws SQLException {
        try (Connection c = connect()) {
            for (long id : goodIds) {
                for (String sql : new String[] {"delete from seckill_order where good_id = ?",
                        "delete from seckill_good_segment where good_id = ?", "delete from seckill_good where id = ?"}) {
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        ps.setLong(1, id);
                        ps.executeUpdate();
                    }
                }
            }
        }
    }

    // --- the steps of one purchase, on the caller's connection and transaction ---

    static int readStock(Connection c, long goodId, boolean forUpdate) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select stockCount from seckill_good where id = ?" + (forUpdate ? " for update" : ""))) {
            ps.setLong(1, goodId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** Stock and version, for the optimistic strategy. */
    static long[] readStockAndVersion(Connection c, long goodId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select stockCount, version from seckill_good where id = ?")) {
            ps.setLong(1, goodId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getInt(1), rs.getLong(2)};
            }
        }
    }

    static void placeOrder(Connection c, long goodId, int buyer) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into seckill_order (good_id, buyer) values (?, ?)")) {
            ps.setLong(1, goodId);
            ps.setInt(2, buyer);
            ps.executeUpdate();
        }
    }

    /** Writes the stock the caller computed: correct only if nobody wrote in between (that is what locks ensure). */
    static void writeStock(Connection c, long goodId, int stock) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("update seckill_good set stockCount = ? where id = ?")) {
            ps.setInt(1, stock);
            ps.setLong(2, goodId);
            ps.executeUpdate();
        }
    }

    static void decrementStock(Connection c, long goodId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "update seckill_good set stockCount = stockCount - 1 where id = ?")) {
            ps.setLong(1, goodId);
            ps.executeUpdate();
        }
    }

    /** The compare-and-set: true if nobody changed the row since we read {@code version}. */
    static boolean decrementIfVersion(Connection c, long goodId, long version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("update seckill_good set stockCount = stockCount - 1, "
                + "version = version + 1 where id = ? and version = ? and stockCount > 0")) {
            ps.setLong(1, goodId);
            ps.setLong(2, version);
            return ps.executeUpdate() == 1;
        }
    }

    static int readSegmentStock(Connection c, long goodId, int segment) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select stockCount from seckill_good_segment where good_id = ? and segment = ?")) {
            ps.setLong(1, goodId);
            ps.setInt(2, segment);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    static void writeSegmentStock(Connection c, long goodId, int segment, int stock) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "update seckill_good_segment set stockCount = ? where good_id = ? and segment = ?")) {
            ps.setInt(1, stock);
            ps.setLong(2, goodId);
            ps.setInt(3, segment);
            ps.executeUpdate();
        }
    }
}
