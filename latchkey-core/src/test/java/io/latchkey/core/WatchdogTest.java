package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockEventListener;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The batched renewer, fixed-lease expiry, and the "renewal never outlives unlock" rule. */
class WatchdogTest {

    private final String server = CountingMemClient.newServer();
    private final List<Integer> batches = new CopyOnWriteArrayList<>();
    private final CountingMemClient client = new CountingMemClient(server, ClientOptions.builder()
            .watchdogTimeout(Duration.ofMillis(900))
            .eventListener(new LockEventListener() {
                @Override
                public void renewed(int leases, Duration took) {
                    batches.add(leases);
                }
            })
            .build());
    private final MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void oneRenewCallPerTickForAllHeldLocks() throws Exception {
        List<LockLease> leases = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            leases.add(client.lock("batch-" + i).acquire());
        }
        batches.clear();
        int callsBefore = client.counting().renewCalls.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> batches.size() >= 3);
        assertThat(batches).as("every renew call carries every held lease").allMatch(n -> n == 25);
        assertThat(client.counting().renewCalls.get() - callsBefore).isBetween(batches.size(), batches.size() + 1);
        assertThat(leases).allMatch(LockLease::isValid);
        assertThat(other.lock("batch-0").isLocked()).as("kept alive past several watchdog timeouts").isTrue();
        for (LockLease lease : leases) {
            lease.release();
        }
        assertThat(client.engineForTest().renewedCount()).isZero();
    }

    @Test
    void renewalNeverOutlivesUnlock() throws Exception {
        DistributedLock lock = client.lock("outlive");
        lock.lock();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.counting().renewCalls.get() >= 1);
        lock.unlock();
        assertThat(client.engineForTest().renewedCount()).isZero();
        // the same thread (same owner id) locks again with a fixed lease: no renewal may extend it
        lock.lock(Duration.ofMillis(300));
        long locked = System.nanoTime();
        int renewedBefore = client.counting().renewedGrants.get();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
                .until(() -> !other.lock("outlive").isLocked());
        long freeAfterMillis = (System.nanoTime() - locked) / 1_000_000;
        assertThat(freeAfterMillis).as("the fixed lease expired on time").isLessThan(1500);
        assertThat(client.counting().renewedGrants.get()).isEqualTo(renewedBefore);
        Assertions.assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void fixedLeaseIsReportedLostWhenItRunsOut() throws Exception {
        LockLease lease = client.lock("fixed").acquire(Duration.ofMillis(200));
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        await().atMost(Duration.ofSeconds(3)).until(() -> lost.get() == 1);
        assertThat(lease.isValid()).isFalse();
        Assertions.assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        AtomicInteger late = new AtomicInteger();
        lease.onLost(late::incrementAndGet);
        assertThat(late).as("a listener added after the loss runs at once").hasValue(1);
        assertThat(lost).hasValue(1);
    }
}
