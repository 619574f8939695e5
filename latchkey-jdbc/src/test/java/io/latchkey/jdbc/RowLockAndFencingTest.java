package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.LockLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Row locks (wait, timeout, NOWAIT, missing row, rollback) and resource-side fencing on a real database. */
abstract class RowLockAndFencingTest {

    abstract SqlDialect dialect();

    HikariDataSource ds;
    String accounts;

    @BeforeEach
    void setUp() throws SQLException {
        ds = TestDatabases.pool(TestDatabases.jdbcUrl(dialect()), 8);
        accounts = TestDatabases.table("account");
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + accounts + " (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, writer BIGINT)");
            s.execute("INSERT INTO " + accounts + " (id, balance) VALUES (1, 0)");
        }
    }

    @AfterEach
    void tearDown() throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + accounts);
        }
        ds.close();
    }

    @Test
    void aHeldRowMakesOthersWaitTimeOutOrFailAtOnce() throws Exception {
        RowLock rows = RowLock.of(ds, accounts, "id");
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try {
                rows.withLockedRow(1L, tx -> {
                    holding.countDown();
                    try {
                        done.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return null;
                });
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

        long start = System.nanoTime();
        assertThatThrownBy(() -> rows.withLockedRowNoWait(1L, tx -> 1))
                .isInstanceOf(RowLockTimeoutException.class).hasMessageContaining("NOWAIT")
                .hasMessageContaining(accounts);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1_000);

        start = System.nanoTime();
        assertThatThrownBy(() -> rows.withLockedRow(1L, Duration.ofMillis(300), tx -> 1))
                .isInstanceOf(RowLockTimeoutException.class).hasMessageContaining("lock timeout");
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waited).isGreaterThanOrEqualTo(250).isLessThan(5_000);

        // A waiter without a timeout gets the row when the holder commits.
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return rows.withLockedRow(1L, tx -> {
                    update(tx, 42);
                    return 42L;
                });
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(200);
        assertThat(waiter).isNotDone();
        done.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(42L);
        assertThat(balance()).isEqualTo(42);
    }

    @Test
    void aMissingRowAndAFailingCallbackAreReportedAndRolledBack() throws Exception {
        RowLock rows = RowLock.of(ds, accounts, "id");
        assertThatThrownBy(() -> rows.withLockedRow(404L, tx -> 1))
                .isInstanceOf(RowNotFoundException.class).hasMessageContaining("id = 404");
        assertThatThrownBy(() -> rows.withLockedRow(1L, tx -> {
            update(tx, 7);
            throw new IllegalStateException("payment declined");
        })).isInstanceOf(IllegalStateException.class).hasMessage("payment declined");
        assertThat(balance()).as("rolled back").isZero();
        String ok = rows.withLockedRow(1L, tx -> {
            update(tx, 5);
            return "ok";
        });
        assertThat(ok).isEqualTo("ok");
        assertThat(balance()).isEqualTo(5);
    }

    @Test
    void aPausedHoldersLateWriteIsRefusedByItsFencingToken() throws Exception {
        FencingGuard guard = FencingGuard.create(ds, TestDatabases.table("fence"), true);
        JdbcOptions jdbc = JdbcOptions.builder().tableName(TestDatabases.table("fence_locks")).build();
        try (JdbcLockClient a = JdbcLockClient.create(ds, ClientOptions.defaults(), jdbc);
             JdbcLockClient b = JdbcLockClient.create(ds, ClientOptions.defaults(), jdbc)) {
            LockLease first = a.lock("account:1").acquire(Duration.ofMillis(300));
            long firstToken = first.fencingToken();
            guard.write("account:1", firstToken, tx -> write(tx, 10, firstToken));

            // The first holder "pauses" (GC, network) past its lease; the second takes the lock and writes.
            LockLease second = b.lock("account:1").tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                    .orElseThrow();
            assertThat(second.fencingToken()).isGreaterThan(firstToken);
            guard.write("account:1", second.fencingToken(), tx -> write(tx, 20, second.fencingToken()));

            // The first holder wakes up and writes late: refused, nothing written.
            assertThatThrownBy(() -> guard.write("account:1", firstToken, tx -> write(tx, 99, firstToken)))
                    .isInstanceOf(StaleTokenException.class).hasMessageContaining("fencing token " + firstToken);
            assertThat(balance()).isEqualTo(20);
            // The current holder may write again with its token.
            guard.write("account:1", second.fencingToken(), tx -> write(tx, 30, second.fencingToken()));
            assertThat(balance()).isEqualTo(30);
            second.release();
        }
    }

    private Object write(Connection tx, long balance, long token) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("UPDATE " + accounts + " SET balance = ?, writer = ? WHERE id = 1")) {
            ps.setLong(1, balance);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
        return null;
    }

    private void update(Connection tx, long balance) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("UPDATE " + accounts + " SET balance = ? WHERE id = 1")) {
            ps.setLong(1, balance);
            ps.executeUpdate();
        }
    }

    private long balance() throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + accounts + " WHERE id = 1")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
