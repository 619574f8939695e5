package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.sql.MariaDbServer;
import io.latchkey.testing.sql.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database that only reads is refused at connect, saying why and where to connect instead: a PostgreSQL hot
 * standby, a PostgreSQL database whose sessions are read-only, a MariaDB server with {@code read_only} on. Both the
 * lease-table client and the advisory-lock client; nothing is written.
 */
class JdbcReadOnlyDatabaseTest {

    private static final ClientOptions OPTIONS = ClientOptions.builder().operationTimeout(Duration.ofSeconds(5))
            .build();

    private static PostgresServer standby;

    @BeforeAll
    static void startStandby() throws SQLException {
        PostgresServer primary = PostgresServer.shared();
        standby = PostgresServer.standbyOf(primary);
        standby.start();
        execute(primary.jdbcUrl(), "DROP DATABASE IF EXISTS readonly_db",
                "CREATE DATABASE readonly_db", "ALTER DATABASE readonly_db SET default_transaction_read_only = on");
    }

    @AfterAll
    static void stopStandby() {
        if (standby != null) {
            standby.close();
        }
    }

    @Test
    void aPostgresqlStandbyIsRefusedNamingThePrimary() {
        assertThatThrownBy(() -> LockClient.connect(standby.jdbcUrl(), OPTIONS))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + standby.port())
                .hasMessageContaining("is a standby server in recovery (a read-only replica): locks are written on "
                        + "the primary");
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(standby.jdbcUrl());
        assertThatThrownBy(() -> JdbcAdvisoryLockClient.create(dataSource, OPTIONS))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("is a standby server in recovery");
    }

    @Test
    void aPostgresqlDatabaseWithReadOnlySessionsIsRefused() {
        String url = PostgresServer.shared().jdbcUrl().replace("/postgres?", "/readonly_db?");
        assertThatThrownBy(() -> LockClient.connect(url, OPTIONS))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("opens read-only transactions (default_transaction_read_only is on");
    }

    @Test
    void aMariadbServerWithReadOnlyOnIsRefused() throws SQLException {
        MariaDbServer mariadb = MariaDbServer.shared();
        execute(mariadb.jdbcUrl(), "SET GLOBAL read_only = 1");
        try {
            assertThatThrownBy(() -> LockClient.connect(mariadb.jdbcUrl(), OPTIONS))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("has read_only on (a replica, most often): locks are written on the "
                            + "primary");
        } finally {
            execute(mariadb.jdbcUrl(), "SET GLOBAL read_only = 0");
        }
        try (LockClient client = LockClient.connect(mariadb.jdbcUrl(), OPTIONS)) {
            DistributedLock lock = client.lock("read-only-check");
            assertThat(lock.tryLock()).as("writable again").isTrue();
            lock.unlock();
        }
    }

    private static void execute(String url, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
