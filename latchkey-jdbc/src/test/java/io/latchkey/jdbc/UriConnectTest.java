package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.testing.sql.MariaDbServer;
import io.latchkey.testing.sql.PostgresServer;
import org.junit.jupiter.api.Test;

/** {@code LockClient.connect} with each accepted {@code jdbc:} scheme picks the JDBC backend and the dialect. */
class UriConnectTest {

    @Test
    void everySchemeConnects() {
        String mariadb = MariaDbServer.shared().jdbcUrl();
        String mysql = "jdbc:mysql:" + mariadb.substring("jdbc:mariadb:".length());
        check(PostgresServer.shared().jdbcUrl(), SqlDialect.POSTGRESQL);
        check(mariadb, SqlDialect.MYSQL);
        check(mysql, SqlDialect.MYSQL);
        check("jdbc:h2:mem:uri-test;DB_CLOSE_DELAY=-1", SqlDialect.H2);
    }

    private static void check(String uri, SqlDialect dialect) {
        try (LockClient client = LockClient.connect(uri)) {
            assertThat(client).isInstanceOf(JdbcLockClient.class);
            assertThat(((JdbcLockClient) client).dialect()).isEqualTo(dialect);
            assertThat(client.capabilities().contains(Capability.PUSH_WAKEUP))
                    .isEqualTo(dialect == SqlDialect.POSTGRESQL);
            assertThat(client.toString()).doesNotContain("password");
            DistributedLock lock = client.lock("uri-test");
            assertThat(lock.tryLock()).isTrue();
            assertThat(lock.fencingToken()).isPresent();
            lock.unlock();
        }
    }
}
