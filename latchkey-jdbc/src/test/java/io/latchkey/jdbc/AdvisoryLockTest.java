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
    /**
     * A timed-out wait must not leave a cancel in flight: on a two-connection pool the waiter's connection is the
     * next one anyone borrows, and a late cancel would interrupt that borrower's statement.
     */
    @Test
    void timedOutWaitsLeaveTheNextBorrowerAlone() throws Exception {
        try (HikariDataSource small = TestDatabases.pool(TestDatabases.jdbcUrl(dialect()), 2);
             JdbcAdvisoryLockClient holder = JdbcAdvisoryLockClient.create(small);
             JdbcAdvisoryLockClient waiter = JdbcAdvisoryLockClient.create(small)) {
            String name = "adv-timeout-" + System.nanoTime();
            DistributedLock held = holder.lock(name);
            held.lock();
            try {
                DistributedLock other = waiter.lock(name);
                for (int i = 0; i < 15; i++) {
                    assertThat(other.tryLock(20 + i, TimeUnit.MILLISECONDS)).isFalse();
                    try (var c = small.getConnection(); var st = c.createStatement()) {
                        st.execute(dialect() == SqlDialect.POSTGRESQL ? "SELECT pg_sleep(0.03)" : "SELECT SLEEP(0.03)");
                    }
                }
            } finally {
                held.unlock();
            }
        }
    }

    @Test
    void anInterruptedWaitLeavesNoLockAndAUsablePool() throws Exception {
        try (HikariDataSource small = TestDatabases.pool(TestDatabases.jdbcUrl(dialect()), 2);
             JdbcAdvisoryLockClient holder = JdbcAdvisoryLockClient.create(small);
             JdbcAdvisoryLockClient waiter = JdbcAdvisoryLockClient.create(small)) {
            String name = "adv-interrupt-" + System.nanoTime();
            DistributedLock held = holder.lock(name);
            held.lock();
            Thread t = new Thread(() -> {
                try {
                    waiter.lock(name).lockInterruptibly();
                } catch (InterruptedException expected) {
                    // the point of the test
                }
            }, "interrupted-advisory-waiter");
            t.start();
            Thread.sleep(200);
            t.interrupt();
            t.join(5_000);
            assertThat(t.isAlive()).isFalse();
            held.unlock();
            DistributedLock again = waiter.lock(name);
            assertThat(again.tryLock(5, TimeUnit.SECONDS)).as("the abandoned wait left no lock behind").isTrue();
            try (var c = small.getConnection(); var st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            again.unlock();
        }
    }
}
