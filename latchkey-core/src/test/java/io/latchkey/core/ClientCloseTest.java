package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** close(): waiters fail, leases turn lost but stay held on the server, the watchdog thread ends. */
class ClientCloseTest {

    private final String server = CountingMemClient.newServer();
    private final CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog());
    private final MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void closeFailsWaitersMarksLeasesLostAndStopsItsThread() throws Exception {
        String threadName = "latchkey-mem-watchdog-" + client.clientId().substring(0, 8);
        LockLease lease = client.lock("held").acquire(Duration.ofSeconds(30));
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        assertThat(watchdogThread(threadName)).hasValueSatisfying(t -> assertThat(t.isDaemon()).isTrue());

        DistributedLock busy = other.lock("busy");
        busy.lock(Duration.ofSeconds(30));
        CompletableFuture<LockLease> waiting = client.lock("busy").acquireAsync();
        DistributedLock syncWaiter = client.lock("busy");
        CompletableFuture<Throwable> blocked = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                syncWaiter.lock();
                blocked.complete(null);
            } catch (Throwable e) {
                blocked.complete(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(3)).until(() -> t.getState() == Thread.State.WAITING);

        client.close();
        client.close(); // idempotent

        assertThatThrownBy(() -> waiting.get(2, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(LockUnavailableException.class).hasMessageContaining("client closed");
        assertThat(blocked.get(2, TimeUnit.SECONDS)).isInstanceOf(LockUnavailableException.class);
        assertThat(lease.isValid()).isFalse();
        assertThat(lost).hasValue(1);
        assertThat(other.lock("held").isLocked()).as("not released silently: it expires with its lease").isTrue();
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        assertThatThrownBy(() -> client.lock("x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("client closed");
        await().atMost(Duration.ofSeconds(3)).until(() -> watchdogThread(threadName).isEmpty());
        busy.unlock();
    }

    @Test
    void aClientThatNeverLocksStartsNoThread() {
        try (MemLockClient idle = MemLockClient.create(server)) {
            assertThat(watchdogThread("latchkey-mem-watchdog-" + idle.clientId().substring(0, 8))).isEmpty();
        }
    }

    private static java.util.Optional<Thread> watchdogThread(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive())
                .findFirst();
    }
}
