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
    private final String namespace;
    private final LazyTables schema;
    private final String checkHold;
    private final String selectForUpdate;
    private final String select;
    private final String insert;
    private final String update;
    private final String delete;

    JdbcFencedStoreOps(JdbcRunner runner, SqlDialect dialect, String lockTable, String namespace, boolean create) {
        this.runner = runner;
        this.dialect = dialect;
        this.namespace = namespace;
        String locks = SqlIdentifiers.qualifiedName("table", lockTable);
        String store = LeaseTableSql.derivedName(locks, "_store");
        this.schema = new LazyTables(runner, "of the fenced store", create, new LazyTables.Table(store,
                "SELECT lock_name, key_hash, item_key, item_value FROM " + store + " WHERE 1 = 0",
                storeTableDdl(dialect, locks)));
        this.checkHold = "SELECT token FROM " + locks + " WHERE lock_name = ? AND token = ? AND owner IS NOT NULL"
                + " AND expires_at > " + dialect.nowMillis() + " FOR UPDATE";
        String where = " WHERE lock_name = ? AND key_hash = ?";
        this.select = "SELECT item_value FROM " + store + where;
        this.selectForUpdate = select + " FOR UPDATE";
        this.insert = "INSERT INTO " + store + " (lock_name, key_hash, item_key, item_value) VALUES (?, ?, ?, ?)";
        this.update = "UPDATE " + store + " SET item_value = ?" + where;
        this.delete = "DELETE FROM " + store + where;
    }

    /** The DDL of the store table beside the lease table {@code table}. */
    static String storeTableDdl(SqlDialect dialect, String table) {
        String value = switch (dialect) {
            case POSTGRESQL -> "BYTEA";
            case MYSQL -> "BLOB";
            case H2 -> "VARBINARY(65535)";
        };
        return "CREATE TABLE IF NOT EXISTS " + LeaseTableSql.derivedName(SqlIdentifiers.qualifiedName("table", table),
                "_store") + " (\n"
                + "  lock_name  " + dialect.bin("VARCHAR(650)") + " NOT NULL,\n"
                + "  key_hash   CHAR(64) NOT NULL,\n"
                + "  item_key   " + dialect.bin("VARCHAR(256)") + " NOT NULL,\n"
                + "  item_value " + value + " NOT NULL,\n"
                + "  PRIMARY KEY (lock_name, key_hash)\n" + dialect.engine();
    }

    static String keyHash(String key) {
        return java.util.HexFormat.of().formatHex(sha256(key));
    }

    /** The SHA-256 of {@code text}'s UTF-8 bytes (also the advisory-lock keys'). */
    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        String row = LeaseTableRows.keyPrefix(namespace) + lockName;
        return schema.ready().thenCompose(v -> runner.async("fenced store get of lock " + lockName, c -> {
            try (PreparedStatement s = runner.prepare(c, select, row, keyHash(key)); ResultSet rs = s.executeQuery()) {
                return Optional.ofNullable(rs.next() ? rs.getBytes(1) : null);
            }
        }));
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        String row = LeaseTableRows.keyPrefix(namespace) + lockName;
        String hash = keyHash(write.key());
        return schema.ready().thenCompose(v -> runner.async("fenced store " + write.kind() + " of lock " + lockName,
                c -> SqlWork.inTransaction(dialect, c, tx -> apply(tx, row, token, hash, write))));
    }

    private FencedWrite.Outcome apply(Connection c, String row, long token, String hash, FencedWrite write)
            throws SQLException {
        if (runner.queryLong(c, checkHold, row, token) == null) {
            return FencedWrite.Outcome.STALE;
        }
        byte[] current;
        try (PreparedStatement s = runner.prepare(c, selectForUpdate, row, hash); ResultSet rs = s.executeQuery()) {
            current = rs.next() ? rs.getBytes(1) : null;
        }
        if (!write.matches(current)) {
            return FencedWrite.Outcome.UNCHANGED;
        }
        if (write.kind() == FencedWrite.Kind.DELETE) {
            runner.update(c, delete, row, hash);
        } else if (current == null) {
            runner.update(c, insert, row, hash, write.key(), write.value());
        } else {
            runner.update(c, update, write.value(), row, hash);
        }
        return FencedWrite.Outcome.APPLIED;
    }
}
