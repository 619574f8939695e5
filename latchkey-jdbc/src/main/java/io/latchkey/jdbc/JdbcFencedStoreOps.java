package io.latchkey.jdbc;

import io.latchkey.core.FencedWrite;
import io.latchkey.core.RemoteFencedStoreOps;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The SQL fenced store: one row per store key in {@code <table>_store} (created on first use unless
 * {@code createTable} is off), keyed by the lease row's key (namespace and lock name) and the SHA-256 of the store
 * key (so that the primary key fits MariaDB's index limit whatever the key). The rows are the user's data: the
 * reaper, {@code inspect} and {@code unlock} only touch the lease table.
 *
 * <p>A write is one transaction: {@code SELECT … FOR UPDATE} of the lease row with the writer's token and an
 * unexpired lease on the database's clock, then the store row (read with {@code FOR UPDATE}, then inserted, updated
 * or deleted), then commit. The row lock on the lease row is held until the commit, so a release, take-over or
 * hand-off of the lock (all writes of that row) waits for the store write, and a write whose lease row is gone, has
 * another token or has expired changes nothing. Every fenced write of one lock locks the same lease row, so fenced
 * writes of one store are serialized; compare-and-set compares in that transaction.
 */
final class JdbcFencedStoreOps implements RemoteFencedStoreOps {

    private final JdbcRunner runner;
    private final SqlDialect dialect;
    private final String lockTable;
    private final String storeTable;
    private final String namespace;
    private final boolean create;
    private final String checkHold;
    private final String select;
    private final String selectForUpdate;
    private final String insert;
    private final String update;
    private final String delete;
    private final AtomicReference<CompletableFuture<Void>> ready = new AtomicReference<>();

    JdbcFencedStoreOps(JdbcRunner runner, SqlDialect dialect, String lockTable, String namespace, boolean create) {
        this.runner = runner;
        this.dialect = dialect;
        this.lockTable = SqlIdentifiers.qualifiedName("table", lockTable);
        this.storeTable = LeaseTableSql.derivedName(this.lockTable, "_store");
        this.namespace = namespace;
        this.create = create;
        this.checkHold = "SELECT token FROM " + this.lockTable + " WHERE lock_name = ? AND token = ? AND owner IS NOT NULL"
                + " AND expires_at > " + dialect.nowMillis() + " FOR UPDATE";
        String where = " WHERE lock_name = ? AND key_hash = ?";
        this.select = "SELECT item_value FROM " + storeTable + where;
        this.selectForUpdate = select + " FOR UPDATE";
        this.insert = "INSERT INTO " + storeTable + " (lock_name, key_hash, item_key, item_value) VALUES (?, ?, ?, ?)";
        this.update = "UPDATE " + storeTable + " SET item_value = ?" + where;
        this.delete = "DELETE FROM " + storeTable + where;
    }

    /** The DDL of the store table beside the lease table {@code table}. */
    static String storeTableDdl(SqlDialect dialect, String table) {
        String t = LeaseTableSql.derivedName(SqlIdentifiers.qualifiedName("table", table), "_store");
        String name = dialect == SqlDialect.MYSQL ? "VARCHAR(650) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
                : "VARCHAR(650)";
        String key = dialect == SqlDialect.MYSQL ? "VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
                : "VARCHAR(256)";
        String value = switch (dialect) {
            case POSTGRESQL -> "BYTEA";
            case MYSQL -> "BLOB";
            case H2 -> "VARBINARY(65535)";
        };
        return "CREATE TABLE IF NOT EXISTS " + t + " (\n"
                + "  lock_name  " + name + " NOT NULL,\n"
                + "  key_hash   CHAR(64) NOT NULL,\n"
                + "  item_key   " + key + " NOT NULL,\n"
                + "  item_value " + value + " NOT NULL,\n"
                + "  PRIMARY KEY (lock_name, key_hash)\n"
                + ")" + (dialect == SqlDialect.MYSQL ? " ENGINE=InnoDB" : "");
    }

    static String keyHash(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(64);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    private CompletableFuture<Void> ready() {
        while (true) {
            CompletableFuture<Void> current = ready.get();
            if (current != null && !current.isCompletedExceptionally()) {
                return current;
            }
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (ready.compareAndSet(current, mine)) {
                runner.async("check the fenced store table " + storeTable, c -> {
                    String probe = "SELECT lock_name, key_hash, item_key, item_value FROM " + storeTable + " WHERE 1 = 0";
                    if (LeaseTableSchema.usable(c, probe)) {
                        return null;
                    }
                    String ddl = storeTableDdl(dialect, lockTable);
                    if (!create) {
                        throw new IllegalStateException(String.format("the fenced store table %s does not exist (or "
                                + "lacks the expected columns) in %s and createTable is off; create it with:%n%s",
                                storeTable, runner.server(), ddl));
                    }
                    try {
                        LeaseTableSchema.execute(c, ddl);
                    } catch (SQLException e) {
                        if (!LeaseTableSchema.usable(c, probe)) {
                            throw e;
                        }
                    }
                    return null;
                }).whenComplete((v, e) -> {
                    if (e != null) {
                        mine.completeExceptionally(e);
                    } else {
                        mine.complete(null);
                    }
                });
                return mine;
            }
        }
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        String row = LeaseTableRows.keyPrefix(namespace) + lockName;
        return ready().thenCompose(v -> runner.async("fenced store get of lock " + lockName, c -> {
            try (PreparedStatement s = c.prepareStatement(select)) {
                runner.limit(s);
                s.setString(1, row);
                s.setString(2, keyHash(key));
                try (ResultSet rs = s.executeQuery()) {
                    return Optional.ofNullable(rs.next() ? rs.getBytes(1) : null);
                }
            }
        }));
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        String row = LeaseTableRows.keyPrefix(namespace) + lockName;
        String hash = keyHash(write.key());
        return ready().thenCompose(v -> runner.async("fenced store " + write.kind() + " of lock " + lockName,
                c -> SqlWork.inTransaction(dialect, c, tx -> apply(tx, row, token, hash, write))));
    }

    private FencedWrite.Outcome apply(Connection c, String row, long token, String hash, FencedWrite write)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(checkHold)) {
            runner.limit(s);
            s.setString(1, row);
            s.setLong(2, token);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return FencedWrite.Outcome.STALE;
                }
            }
        }
        byte[] current;
        try (PreparedStatement s = c.prepareStatement(selectForUpdate)) {
            runner.limit(s);
            s.setString(1, row);
            s.setString(2, hash);
            try (ResultSet rs = s.executeQuery()) {
                current = rs.next() ? rs.getBytes(1) : null;
            }
        }
        if (!write.matches(current)) {
            return FencedWrite.Outcome.UNCHANGED;
        }
        if (write.kind() == FencedWrite.Kind.DELETE) {
            try (PreparedStatement s = c.prepareStatement(delete)) {
                runner.limit(s);
                s.setString(1, row);
                s.setString(2, hash);
                s.executeUpdate();
            }
        } else if (current == null) {
            try (PreparedStatement s = c.prepareStatement(insert)) {
                runner.limit(s);
                s.setString(1, row);
                s.setString(2, hash);
                s.setString(3, write.key());
                s.setBytes(4, write.value());
                s.executeUpdate();
            }
        } else {
            try (PreparedStatement s = c.prepareStatement(update)) {
                runner.limit(s);
                s.setBytes(1, write.value());
                s.setString(2, row);
                s.setString(3, hash);
                s.executeUpdate();
            }
        }
        return FencedWrite.Outcome.APPLIED;
    }
}
