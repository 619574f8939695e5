package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Advisory-lock mode specifics: fixed leases, fencing tokens, force-unlock, and H2's refusal. */
abstract class AdvisoryLockTest {

    abstract SqlDialect dialect();

    HikariDataSource ds;
    JdbcAdvisoryLockClient a;
    JdbcAdvisoryLockClient b;

    @BeforeEach
    void setUp() {
        ds = TestDatabases.pool(TestDatabases.jdbcUrl(dialect()), 12);
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofMillis(900)).build();
        a = JdbcAdvisoryLockClient.create(ds, options);
        b = JdbcAdvisoryLockClient.create(ds, options);
    }

    @AfterEach
    void tearDown() {
        a.close();
        b.close();
        ds.close();
    }

    @Test
    void tokensGrowAndAFixedLeaseEndsOnTime() throws Exception {
        String name = "adv-" + System.nanoTime();
        LockLease first = a.lock(name).acquire(Duration.ofMillis(300));
        long start = System.nanoTime();
        Optional<LockLease> second = b.lock(name).tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5));
        assertThat(second).isPresent();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(150L, 3_000L);
        assertThat(second.get().fencingToken()).isGreaterThan(first.fencingToken());
        assertThatThrownBy(first::release).isInstanceOf(LockLostException.class);
        second.get().release();
        LockLease third = a.lock(name).acquire();
        assertThat(third.fencingToken()).isGreaterThan(second.get().fencingToken());
        third.release();
    }

    @Test
    void forceUnlockEndsTheHoldersSessionAndTheHolderIsTold() throws Exception {
        String name = "adv-force-" + System.nanoTime();
        LockLease lease = a.lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        DistributedLock admin = b.lock(name);
        assertThat(admin.isLocked()).isTrue();
        assertThat(admin.forceUnlock()).isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lost).hasValue(1));
        assertThat(admin.tryLock(5, TimeUnit.SECONDS)).isTrue();
        admin.unlock();
        assertThat(admin.isLocked()).isFalse();
    }
}
