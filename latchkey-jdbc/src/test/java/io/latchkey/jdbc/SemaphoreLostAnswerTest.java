package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A semaphore take that committed while its answer was lost (a proxy delays the database's answers past the
 * operation timeout) gives its permits back exactly once; a take whose answer arrived
 * leaves no record once its permits are released. Per database: PostgreSQL (one statement with its record), MariaDB
 * and H2 (a transaction). A lock row written by an attempt whose answer was lost is deleted by the attempt's
 * clean-up, long before its lease runs out.
 */
abstract class SemaphoreLostAnswerTest {

    private static final Duration OP_TIMEOUT = Duration.ofMillis(1500);

    abstract SqlDialect dialect();

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(OP_TIMEOUT).watchdogTimeout(Duration.ofSeconds(10)).build();
    }

    /** The database's URL with its host and port replaced by the proxy's. */
    private static String through(String jdbcUrl, int port) {
        URI u = URI.create(jdbcUrl.substring("jdbc:".length()));
        return jdbcUrl.replace(u.getHost() + ":" + u.getPort(), "127.0.0.1:" + port);
    }

    private static long records(String jdbcUrl, String table) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl);
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + "_permits"
                     + " WHERE semaphore_name = ?")) {
            ps.setString(1, CountTableSql.takeRecords(""));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void permitsTakenByAnAttemptWhoseAnswerWasLostComeBackOnce() throws Exception {
        String url = TestDatabases.jdbcUrl(dialect());
        URI u = URI.create(url.substring("jdbc:".length()));
        String table = TestDatabases.table("lost");
        JdbcOptions jdbc = JdbcOptions.builder().tableName(table).build();
        try (AnswerDelayingProxy proxy = new AnswerDelayingProxy(u.getHost(), u.getPort());
             JdbcLockClient client = JdbcLockClient.create(through(url, proxy.port()), 4, options(), jdbc)) {
            String name = "sem-lost-" + UUID.randomUUID();
            DistributedSemaphore semaphore = client.semaphore(name);
            assertThat(semaphore.trySetPermits(2)).isTrue();
            // the take's first answer comes two operation timeouts late: PostgreSQL's one statement has committed
            // by then, the other databases' transaction commits right after it
            proxy.delayAnswers(2 * OP_TIMEOUT.toMillis());
            try {
                assertThatThrownBy(() -> semaphore.tryAcquire(2, Duration.ZERO))
                        .isInstanceOf(LockUnavailableException.class);
            } finally {
                proxy.delayAnswers(0);
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> records(url, table) == 0 && semaphore.availablePermits() == 2);
            Thread.sleep(2 * OP_TIMEOUT.toMillis()); // every give-back has run
            assertThat(semaphore.availablePermits()).as("given back exactly once").isEqualTo(2);
            assertThat(records(url, table)).as("the give-back deleted the record").isZero();
            assertThat(semaphore.tryAcquire(2, Duration.ZERO)).isTrue();
            semaphore.release(2);
            assertThat(records(url, table)).as("the release deleted the take's record").isZero();
        }
    }

    @Test
    void aLockRowWrittenByAnAttemptWhoseAnswerWasLostIsDeleted() throws Exception {
        String url = TestDatabases.jdbcUrl(dialect());
        URI u = URI.create(url.substring("jdbc:".length()));
        String table = TestDatabases.table("lostlock");
        JdbcOptions jdbc = JdbcOptions.builder().tableName(table).build();
        try (AnswerDelayingProxy proxy = new AnswerDelayingProxy(u.getHost(), u.getPort());
             JdbcLockClient client = JdbcLockClient.create(through(url, proxy.port()), 4, options(), jdbc);
             JdbcLockClient other = JdbcLockClient.create(url, 2, options(), jdbc)) {
            String name = "lock-lost-" + UUID.randomUUID();
            // the attempt's answer comes two operation timeouts late: its row is written (and committed) by then
            proxy.delayAnswers(2 * OP_TIMEOUT.toMillis());
            try {
                assertThatThrownBy(() -> client.lock(name).tryLock(0, java.util.concurrent.TimeUnit.MILLISECONDS))
                        .isInstanceOf(LockUnavailableException.class);
            } finally {
                proxy.delayAnswers(0);
            }
            // without the clean-up the row would block everybody for its lease: the watchdog timeout of 10 s
            long start = System.nanoTime();
            io.latchkey.DistributedLock lock = other.lock(name);
            assertThat(lock.tryLock(8, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            long waitedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waitedMillis).as("freed by the clean-up, not by the lease").isLessThan(5_000);
            Thread.sleep(OP_TIMEOUT.toMillis()); // the late answer has arrived: it must not have touched the new hold
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(client.lock(name).tryLock(0, java.util.concurrent.TimeUnit.MILLISECONDS)).as("still held by the other client").isFalse();
            lock.unlock();
            assertThat(client.lock(name).tryLock(2, java.util.concurrent.TimeUnit.SECONDS)).as("the first client locks again").isTrue();
            client.lock(name).unlock();
        }
    }

    @Test
    void aTakeWhoseAnswerArrivedLeavesNoRecordOnceReleased() throws Exception {
        String url = TestDatabases.jdbcUrl(dialect());
        String table = TestDatabases.table("taken");
        JdbcOptions jdbc = JdbcOptions.builder().tableName(table).build();
        try (JdbcLockClient client = JdbcLockClient.create(url, 2, options(), jdbc)) {
            String name = "sem-answered-" + UUID.randomUUID();
            DistributedSemaphore semaphore = client.semaphore(name);
            assertThat(semaphore.trySetPermits(2)).isTrue();
            semaphore.acquire();
            assertThat(records(url, table)).as("the take's record, until the next statement").isEqualTo(1);
            assertThat(client.list("*")).as("inspect lists the semaphore, not its take record")
                    .singleElement().satisfies(i -> {
                        assertThat(i.name()).isEqualTo(name);
                        assertThat(i.kind()).isEqualTo("semaphore");
                    });
            semaphore.acquire();
            assertThat(records(url, table)).as("the second take deleted the first's record").isEqualTo(1);
            assertThat(semaphore.availablePermits()).isZero();
            semaphore.release(2);
            assertThat(records(url, table)).as("the release deleted the last record").isZero();
            assertThat(semaphore.availablePermits()).isEqualTo(2);
        }
    }
}
