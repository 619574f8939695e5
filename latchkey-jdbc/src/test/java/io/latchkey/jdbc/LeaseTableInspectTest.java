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
}
