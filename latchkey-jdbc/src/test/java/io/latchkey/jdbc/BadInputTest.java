package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Unknown dialects, missing tables, bad identifiers and unreachable databases fail with clear messages. */
class BadInputTest {

    @Test
    void unknownDatabasesAreNamed() {
        assertThatThrownBy(() -> SqlDialect.ofProductName("Oracle"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported database 'Oracle'")
                .hasMessageContaining("PostgreSQL, MariaDB/MySQL and H2");
        assertThat(SqlDialect.ofProductName("MariaDB")).isEqualTo(SqlDialect.MYSQL);
        assertThat(SqlDialect.ofProductName("PostgreSQL")).isEqualTo(SqlDialect.POSTGRESQL);
        assertThatThrownBy(() -> LockClient.connect("jdbc:sqlite:/tmp/x.db"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:postgresql:");
    }

    @Test
    void aMissingTableWithoutAutoDdlNamesTheTableAndPrintsTheDdl() {
        try (HikariDataSource ds = TestDatabases.pool(TestDatabases.jdbcUrl(SqlDialect.H2), 2)) {
            JdbcOptions noDdl = JdbcOptions.builder().tableName("missing_locks").createTable(false).build();
            assertThatThrownBy(() -> JdbcLockClient.create(ds, ClientOptions.defaults(), noDdl))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("missing_locks does not exist")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS missing_locks");
            // With auto-DDL (the default) the same table is created and usable.
            try (JdbcLockClient client = JdbcLockClient.create(ds, ClientOptions.defaults(),
                    JdbcOptions.builder().tableName("missing_locks").build())) {
                assertThat(client.lock("x").tryLock()).isTrue();
                client.lock("x").unlock();
            }
        }
    }

    @Test
    void theLongestNameInTheLongestNamespaceFits() {
        try (HikariDataSource ds = TestDatabases.pool(TestDatabases.jdbcUrl(SqlDialect.H2), 2);
             JdbcLockClient client = JdbcLockClient.create(ds, ClientOptions.builder().namespace("n".repeat(128)).build(),
                     JdbcOptions.defaults())) {
            var lock = client.lock("x".repeat(512));
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void advisoryLocksOnH2AreRefused() {
        try (HikariDataSource ds = TestDatabases.pool(TestDatabases.jdbcUrl(SqlDialect.H2), 2)) {
            assertThatThrownBy(() -> JdbcAdvisoryLockClient.create(ds))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("H2 has none");
        }
    }

    @Test
    void identifiersThatCouldInjectSqlAreRejected() {
        assertThatThrownBy(() -> JdbcOptions.builder().tableName("locks; DROP TABLE users"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tableName must be a plain SQL identifier");
        assertThatThrownBy(() -> JdbcOptions.builder().tableName("a.b.c"))
                .isInstanceOf(IllegalArgumentException.class);
        try (HikariDataSource ds = TestDatabases.pool(TestDatabases.jdbcUrl(SqlDialect.H2), 2)) {
            assertThatThrownBy(() -> RowLock.of(ds, "seckill_good", "id = 1 OR 1"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyColumn");
            assertThatThrownBy(() -> RowLock.of(ds, "seckill good", "id"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
            assertThatThrownBy(() -> VersionCas.builder(ds, "seckill_good", "id", "version").columns("stock\"--"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column");
            assertThatThrownBy(() -> CasUpdate.set("1st", 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> FencingGuard.create(ds, "fence'", true))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> JdbcOptions.builder().maxPollInterval(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPollInterval");
    }

    @Test
    void anUnreachableDatabaseIsUnavailableWithoutThePassword() {
        ClientOptions fast = ClientOptions.builder().operationTimeout(Duration.ofMillis(500)).build();
        assertThatThrownBy(() -> LockClient.connect(
                "jdbc:postgresql://127.0.0.1:1/db?user=app&password=hunter2", fast))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("127.0.0.1:1")
                .hasMessageNotContaining("hunter2");
    }
}
