package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.LeaderElection;
import io.latchkey.Leadership;
import io.latchkey.LockClient;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A leader's term is a fencing token for {@link FencingGuard}: after the election lock is taken from a leader and a
 * successor has written, the old leader's write with its old term is refused — on the same database that holds the
 * election (H2 here; the guard's SQL is the one the PostgreSQL and MariaDB tests exercise).
 */
class LeadershipFencingTest {

    private static final ClientOptions OPTIONS = ClientOptions.builder().watchdogTimeout(Duration.ofMillis(1500))
            .build();

    @Test
    void aRevokedLeadersWriteWithItsOldTermIsRefused() throws Exception {
        String url = TestDatabases.jdbcUrl(SqlDialect.H2);
        try (HikariDataSource ds = TestDatabases.pool(url, 4);
             LockClient a = JdbcLockClient.create(ds, OPTIONS);
             LockClient b = JdbcLockClient.create(ds, OPTIONS)) {
            try (java.sql.Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE report (id INT PRIMARY KEY, written_by VARCHAR(20))");
                s.execute("INSERT INTO report VALUES (1, 'nobody')");
            }
            FencingGuard guard = FencingGuard.create(ds);
            LeaderElection election = a.leaderElection("nightly-report", "a");
            Leadership old = election.awaitLeadership();
            AtomicInteger revoked = new AtomicInteger();
            old.onRevoked(revoked::incrementAndGet);
            guard.write("report", old.term(), tx -> update(tx, "a"));

            assertThat(b.lock(election.lockName()).forceUnlock()).isTrue();
            try (Leadership next = b.leaderElection("nightly-report", "b").tryAwaitLeadership(Duration.ofSeconds(5))
                    .orElseThrow()) {
                assertThat(next.term()).isGreaterThan(old.term());
                guard.write("report", next.term(), tx -> update(tx, "b"));
                assertThatThrownBy(() -> guard.write("report", old.term(), tx -> update(tx, "a-late")))
                        .isInstanceOf(StaleTokenException.class);
                await().atMost(Duration.ofSeconds(10)).until(() -> revoked.get() == 1);
                assertThat(old.isValid()).isFalse();
            }
        }
    }

    private static int update(java.sql.Connection tx, String who) throws java.sql.SQLException {
        try (PreparedStatement ps = tx.prepareStatement("UPDATE report SET written_by = ? WHERE id = 1")) {
            ps.setString(1, who);
            return ps.executeUpdate();
        }
    }
}
