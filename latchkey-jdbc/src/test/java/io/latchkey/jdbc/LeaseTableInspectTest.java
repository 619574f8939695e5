package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockLease;
import io.latchkey.spi.LockInfo;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link JdbcLockClient#list}: held rows by the database clock, namespace, glob; one subclass per database. */
abstract class LeaseTableInspectTest {

    abstract SqlDialect dialect();

    HikariDataSource ds;
    JdbcOptions jdbcOptions;

    @BeforeEach
    void setUp() {
        ds = TestDatabases.pool(TestDatabases.jdbcUrl(dialect()), 8);
        jdbcOptions = JdbcOptions.builder().tableName(TestDatabases.table("inspect")).build();
    }

    @AfterEach
    void tearDown() {
        ds.close();
    }

    JdbcLockClient client(String namespace) {
        return JdbcLockClient.create(ds, ClientOptions.builder().namespace(namespace)
                .watchdogTimeout(Duration.ofSeconds(2)).build(), jdbcOptions);
    }

    @Test
    void listsHeldLocksOfItsNamespaceWithRowFieldsAndDatabaseLease() throws Exception {
        try (JdbcLockClient a = client("shop");
             JdbcLockClient other = client("other");
             JdbcLockClient plain = client("")) {
            assertThat(a.capabilities()).contains(Capability.INSPECT);
            LockLease o1 = a.lock("orders-1").acquire();
            LockLease o2 = a.lock("orders-2").acquire(Duration.ofSeconds(30));
            LockLease p = a.lock("payments_%!").acquire();
            LockLease foreign = other.lock("orders-3").acquire();
            LockLease unspaced = plain.lock("orders-4").acquire();

            List<LockInfo> all = a.list(null);
            assertThat(all).extracting(LockInfo::name).containsExactly("orders-1", "orders-2", "payments_%!");
            LockInfo second = all.get(1);
            assertThat(second.owner()).isNotBlank();
            assertThat(second.holdCount()).isEqualTo(1);
            assertThat(second.fencingToken()).hasValue(o2.fencingToken());
            assertThat(second.remainingLease()).hasValueSatisfying(d ->
                    assertThat(d).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30)));
            assertThat(second.waiters()).isEmpty();
            assertThat(all.get(0).fencingToken()).hasValue(o1.fencingToken());
            assertThat(all.get(0).owner()).isNotEqualTo(second.owner());

            assertThat(a.list("orders-*")).extracting(LockInfo::name).containsExactly("orders-1", "orders-2");
            assertThat(a.list("orders-?")).hasSize(2);
            assertThat(a.list("*_%!")).extracting(LockInfo::name).containsExactly("payments_%!");
            assertThat(a.list("orders_*")).as("_ is literal").isEmpty();
            assertThat(a.list("orders-3")).as("another namespace").isEmpty();
            assertThat(other.list("*")).extracting(LockInfo::name).containsExactly("orders-3");
            assertThat(plain.list(null)).as("namespaced rows stay out of the default namespace")
                    .extracting(LockInfo::name).containsExactly("orders-4");

            o2.release();
            assertThat(a.list("orders-*")).extracting(LockInfo::name).containsExactly("orders-1");
            o1.release();
            p.release();
            foreign.release();
            unspaced.release();
            assertThat(a.list(null)).isEmpty();
        }
    }

    @Test
    void anExpiredLeaseIsNotListed() throws Exception {
        try (JdbcLockClient a = client("exp")) {
            a.lock("short").acquire(Duration.ofMillis(300));
            assertThat(a.list(null)).extracting(LockInfo::name).containsExactly("short");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!a.list(null).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(a.list(null)).as("the row remains, but its lease ran out by the database clock").isEmpty();
        }
    }

    @Test
    void listsSemaphoresLatchesAndLeasedPermitsWithTheirKinds() throws Exception {
        try (JdbcLockClient a = client("sync"); JdbcLockClient other = client("elsewhere")) {
            assertThat(a.list(null)).as("before any counted primitive: no tables, nothing listed").isEmpty();
            a.semaphore("pool").trySetPermits(3);
            a.semaphore("pool").acquire(1);
            a.countDownLatch("gate").trySetCount(2);
            var permits = a.permitExpirableSemaphore("slots");
            permits.trySetPermits(2);
            String id = permits.acquire(Duration.ofSeconds(30));
            a.permitExpirableSemaphore("idle").trySetPermits(1);
            other.semaphore("pool").trySetPermits(9);

            List<LockInfo> all = a.list(null);
            assertThat(all).extracting(LockInfo::name, LockInfo::kind, LockInfo::detail).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("gate", "latch", "count 2"),
                    org.assertj.core.groups.Tuple.tuple("idle", "permit-semaphore", "1 of 1 permits available"),
                    org.assertj.core.groups.Tuple.tuple("pool", "semaphore", "2 permits available"),
                    org.assertj.core.groups.Tuple.tuple("slots", "permit", "1 of 2 permits available"));
            LockInfo permit = all.get(3);
            assertThat(permit.owner()).isEqualTo(id);
            assertThat(permit.fencingToken()).isPresent();
            assertThat(permit.remainingLease()).hasValueSatisfying(d ->
                    assertThat(d).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30)));
            assertThat(a.list("po*")).extracting(LockInfo::name).containsExactly("pool");
            assertThat(other.list(null)).extracting(LockInfo::detail).containsExactly("9 permits available");

            a.countDownLatch("gate").countDown();
            a.countDownLatch("gate").countDown();
            permits.release(id);
            assertThat(a.list(null)).extracting(LockInfo::name).as("an opened latch leaves no row")
                    .containsExactly("idle", "pool", "slots");
        }
    }
}
