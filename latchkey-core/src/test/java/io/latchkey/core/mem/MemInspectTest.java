package io.latchkey.core.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link MemLockClient#list}: the server's holds of one namespace, with queue lengths and leases. */
class MemInspectTest {

    private final String server = "inspect-" + UUID.randomUUID();
    private final MemLockClient a = MemLockClient.create(server);
    private final MemLockClient b = MemLockClient.create(server);
    private final MemLockClient other = MemLockClient.create(server, ClientOptions.builder().namespace("other").build());

    @AfterEach
    void close() {
        a.close();
        b.close();
        other.close();
    }

    @Test
    void listsHoldsWithTokenLeaseAndWaiters() throws Exception {
        assertThat(a.capabilities()).contains(Capability.INSPECT);
        LockLease one = a.lock("orders-1").acquire(Duration.ofSeconds(30));
        LockLease two = b.lock("orders-2").acquire();
        LockLease r1 = a.readWriteLock("report").readLock().acquire();
        LockLease r2 = b.readWriteLock("report").readLock().acquire();
        LockLease foreign = other.lock("orders-3").acquire();
        CompletableFuture<LockLease> queued = a.lock("orders-2").acquireAsync();
        await().atMost(5, TimeUnit.SECONDS).until(() -> b.list("orders-2").get(0).waiters().getAsInt() == 1);

        List<LockInfo> all = a.list(null);
        assertThat(all).extracting(LockInfo::name).containsExactly("orders-1", "orders-2", "report", "report");
        LockInfo first = all.get(0);
        assertThat(first.owner()).isNotBlank();
        assertThat(first.holdCount()).isEqualTo(1);
        assertThat(first.fencingToken()).hasValue(one.fencingToken());
        assertThat(first.remainingLease()).hasValueSatisfying(d ->
                assertThat(d).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30)));
        assertThat(first.waiters()).hasValue(0);
        assertThat(all.get(1).fencingToken()).hasValue(two.fencingToken());
        assertThat(all.get(1).waiters()).hasValue(1);
        assertThat(all.get(2).owner()).as("two readers, two entries").isNotEqualTo(all.get(3).owner());

        assertThat(a.list("orders-?")).extracting(LockInfo::name).containsExactly("orders-1", "orders-2");
        assertThat(a.list("rep*")).hasSize(2);
        assertThat(a.list("orders-3")).as("another namespace").isEmpty();
        assertThat(other.list("*")).extracting(LockInfo::name).containsExactly("orders-3");

        two.release();
        LockLease next = queued.get(5, TimeUnit.SECONDS);
        assertThat(b.list("orders-2")).singleElement().satisfies(info -> {
            assertThat(info.fencingToken()).hasValue(next.fencingToken());
            assertThat(info.waiters()).hasValue(0);
        });
        for (LockLease lease : List.of(one, next, r1, r2, foreign)) {
            lease.release();
        }
        assertThat(a.list(null)).isEmpty();
        assertThat(other.list(null)).isEmpty();
    }

    @Test
    void expiredHoldsAreNotListedAndAnOutageIsReported() throws Exception {
        a.lock("short").acquire(Duration.ofMillis(200));
        assertThat(a.list(null)).extracting(LockInfo::name).containsExactly("short");
        await().atMost(5, TimeUnit.SECONDS).until(() -> a.list(null).isEmpty());
        a.setServerAvailable(false);
        try {
            assertThatThrownBy(() -> b.list(null)).isInstanceOf(LockUnavailableException.class);
        } finally {
            a.setServerAvailable(true);
        }
    }

    @Test
    void connectingByUriGivesAnInspector() {
        try (LockClient c = LockClient.connect("mem://" + server)) {
            assertThat(c).isInstanceOf(LockInspector.class);
            assertThat(((LockInspector) c).list("*")).isEmpty();
        }
    }
}
