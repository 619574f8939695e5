package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.sql.PgBouncerServer;
import io.latchkey.testing.sql.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The lease table through PgBouncer in transaction pooling mode: the pooler is detected (or named in the options or
 * the URI), releases are pushed through a direct listen URL or polled for, and advisory locks, which need a session,
 * are refused with a message naming the pooler.
 */
class PgBouncerTest {

    private static String direct() {
        return PostgresServer.shared().jdbcUrl();
    }

    private static String pooled() {
        return PgBouncerServer.shared().jdbcUrl();
    }

    @Test
    void thePoolerIsDetectedAndADirectConnectionIsNot() {
        try (JdbcLockClient viaPooler = JdbcLockClient.create(pooled(), 4, ClientOptions.defaults(),
                JdbcOptions.defaults());
             JdbcLockClient direct = JdbcLockClient.create(direct(), 4, ClientOptions.defaults(),
                     JdbcOptions.defaults())) {
            assertThat(viaPooler.sessionless()).isTrue();
            assertThat(viaPooler.capabilities()).doesNotContain(Capability.PUSH_WAKEUP);
            assertThat(viaPooler.toString()).contains("transaction pooler");
            assertThat(direct.sessionless()).isFalse();
            assertThat(direct.capabilities()).contains(Capability.PUSH_WAKEUP);
        }
    }

    @Test
    void theUriNamesThePoolerAndTheDirectListenUrl() {
        String uri = pooled() + "&latchkey.pooling=transaction&latchkey.listenUrl="
                + URLEncoder.encode(direct(), StandardCharsets.UTF_8);
        try (LockClient client = LockClient.connect(uri)) {
            JdbcLockClient jdbc = (JdbcLockClient) client;
            assertThat(jdbc.sessionless()).isTrue();
            assertThat(jdbc.capabilities()).contains(Capability.PUSH_WAKEUP);
            assertThat(client.toString()).doesNotContain("latchkey.");
        }
        try (LockClient client = LockClient.connect(direct() + "&latchkey.pooling=session")) {
            assertThat(((JdbcLockClient) client).sessionless()).isFalse();
        }
    }

    @Test
    void locksSemaphoresAndHandOffsWorkThroughThePooler() throws Exception {
        JdbcOptions o = JdbcOptions.builder().tableName(TestDatabases.table("pgb")).pooling(JdbcOptions.Pooling.TRANSACTION)
                .build();
        try (JdbcLockClient a = JdbcLockClient.create(pooled(), 4, ClientOptions.defaults(), o);
             JdbcLockClient b = JdbcLockClient.create(pooled(), 4, ClientOptions.defaults(), o)) {
            // Past PgJDBC's prepare threshold (5 uses of a statement), which would break without a session.
            for (int i = 0; i < 12; i++) {
                try (LockLease lease = a.lock("l").acquire(Duration.ofSeconds(10))) {
                    assertThat(b.lock("l").tryAcquire(Duration.ZERO)).isEmpty();
                    assertThat(lease.fencingToken()).isPositive();
                }
            }
            LockLease held = a.lock("h").acquire(Duration.ofSeconds(30));
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                held.release();
            }, "pgbouncer-test-release");
            t.start();
            Optional<LockLease> got = b.lock("h").tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(30));
            assertThat(got).isPresent();
            got.get().release();
            t.join();
            DistributedSemaphore s = a.semaphore("s");
            s.trySetPermits(1);
            assertThat(b.semaphore("s").tryAcquire(1, Duration.ofSeconds(1))).isTrue();
            assertThat(s.tryAcquire(1, Duration.ZERO)).isFalse();
            b.semaphore("s").release(1);
            assertThat(s.tryAcquire(1, Duration.ofSeconds(2))).isTrue();
        }
    }

    @Test
    void advisoryLocksAreRefusedBehindATransactionPooler() {
        try (HikariDataSource ds = TestDatabases.pool(pooled(), 4)) {
            assertThatThrownBy(() -> JdbcAdvisoryLockClient.create(ds))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("PgBouncer with pool_mode = transaction")
                    .hasMessageContaining("advisory locks belong to a database session")
                    .hasMessageContaining("Use JdbcLockClient");
        }
        try (HikariDataSource ds = TestDatabases.pool(direct(), 4);
             JdbcAdvisoryLockClient client = JdbcAdvisoryLockClient.create(ds)) {
            assertThat(client.lock("a").tryLock()).isTrue();
            client.lock("a").unlock();
        }
    }

    @Test
    void aListenUrlThroughThePoolerIsRefused() {
        JdbcOptions o = JdbcOptions.builder().listenUrl(pooled()).build();
        assertThatThrownBy(() -> JdbcLockClient.create(pooled(), 4, ClientOptions.defaults(), o))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must name the PostgreSQL server directly")
                .hasMessageContaining("PgBouncer");
    }

    @Test
    void badPoolerSettingsAreNamed() {
        assertThatThrownBy(() -> JdbcOptions.builder().listenUrl("jdbc:mariadb://db/x?password=secret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listenUrl must be a jdbc:postgresql: URL")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> JdbcOptions.builder().pooling(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockClient.connect(direct() + "&latchkey.pooling=sometimes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("latchkey.pooling must be detect, session or transaction but was 'sometimes'");
        assertThatThrownBy(() -> LockClient.connect(direct() + "&latchkey.poolMode=transaction"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown parameter latchkey.poolMode");
        try (HikariDataSource ds = TestDatabases.pool(TestDatabases.jdbcUrl(SqlDialect.H2), 2)) {
            // Elsewhere than on PostgreSQL a transaction pooler changes nothing the client does.
            try (JdbcLockClient h2 = JdbcLockClient.create(ds, ClientOptions.defaults(),
                    JdbcOptions.builder().pooling(JdbcOptions.Pooling.TRANSACTION).build())) {
                for (int i = 0; i < 8; i++) {
                    assertThat(h2.lock("x").tryLock()).isTrue();
                    h2.lock("x").unlock();
                }
            }
            assertThatThrownBy(() -> JdbcLockClient.create(ds, ClientOptions.defaults(),
                    JdbcOptions.builder().listenUrl(direct()).build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("listenUrl is for PostgreSQL");
        }
    }
}
