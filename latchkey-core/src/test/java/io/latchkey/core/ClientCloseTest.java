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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * close(): waiters fail, holders are told, every hold is released at the server (or, with releaseOnClose off, left
 * to expire with its lease), the watchdog thread ends; the JVM's one shutdown hook comes and goes with the clients.
 */
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
    void closeWaitsForAnUnlockAlreadyOnItsWayBeforeTheBackendCloses() throws Exception {
        LockLease lease = client.lock("racing").acquire(Duration.ofSeconds(30));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        client.counting().releaseGate = gate;
        int before = client.counting().releases.get();
        CompletableFuture<Throwable> unlocked = new CompletableFuture<>();
        Thread unlocker = new Thread(() -> {
            try {
                lease.release();
                unlocked.complete(null);
            } catch (Throwable e) {
                unlocked.complete(e);
            }
        }, "unlocker");
        unlocker.start();
        await().atMost(Duration.ofSeconds(3)).until(() -> client.counting().releases.get() == before + 1);
        AtomicBoolean opened = new AtomicBoolean();
        CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(() -> {
            opened.set(true);
            gate.complete(null);
        });

        client.close(); // e.g. the JVM's shutdown hook while a request thread unlocks

        assertThat(opened).as("close waited for the unlock on its way").isTrue();
        assertThat(unlocked.get(2, TimeUnit.SECONDS)).isNull();
        assertThat(other.lock("racing").isLocked()).as("released, not left to its lease").isFalse();
    }

    @Test
    void closeFailsWaitersMarksLeasesLostAndStopsItsThread() throws Exception {
        String threadName = "latchkey-mem-watchdog-" + client.clientId().substring(0, 8);
        LockLease lease = client.lock("held").acquire(Duration.ofSeconds(30));
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger toldWhileHeld = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        // the holder is told before the lock is free
        lease.onLost(() -> {
            if (other.lock("held").isLocked()) {
                toldWhileHeld.incrementAndGet();
            }
        });
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
        assertThat(toldWhileHeld).hasValue(1);
        assertThat(other.lock("held").isLocked()).as("released on close").isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class).hasMessageContaining("client closed");
        assertThatThrownBy(() -> client.lock("x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("client closed");
        await().atMost(Duration.ofSeconds(3)).until(() -> watchdogThread(threadName).isEmpty());
        busy.unlock();
    }

    @Test
    void closeReleasesEveryKindOfHold() throws Exception {
        DistributedLock threadOwned = client.lock("thread");
        threadOwned.lock();
        client.fairLock("fair").acquire();
        client.readWriteLock("rw").readLock().acquire();
        client.readWriteLock("rw2").writeLock().acquire(Duration.ofSeconds(30));
        io.latchkey.Leadership leadership = client.leaderElection("election", "me").awaitLeadership();
        AtomicInteger revoked = new AtomicInteger();
        leadership.onRevoked(revoked::incrementAndGet);

        client.close();

        assertThat(other.lock("thread").isLocked()).isFalse();
        assertThat(other.fairLock("fair").isLocked()).isFalse();
        assertThat(other.readWriteLock("rw").writeLock().tryLock()).isTrue();
        assertThat(other.readWriteLock("rw2").readLock().tryLock()).isTrue();
        assertThat(revoked).hasValue(1);
        assertThat(other.leaderElection("election", "next").tryAwaitLeadership(Duration.ofSeconds(2))).isPresent();
        // the thread still inside its critical section learns of the loss when it unlocks
        assertThatThrownBy(threadOwned::unlock).isInstanceOf(LockLostException.class)
                .hasMessageContaining("client closed");
    }

    @Test
    void withReleaseOnCloseOffHoldsExpireWithTheirLease() throws Exception {
        MemLockClient keeping = MemLockClient.create(server,
                CountingMemClient.shortWatchdog().toBuilder().releaseOnClose(false).build());
        LockLease lease = keeping.lock("kept").acquire(Duration.ofSeconds(30));
        keeping.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(other.lock("kept").isLocked()).as("left to expire with its lease").isTrue();
        other.lock("kept").forceUnlock();
    }

    @Test
    void oneShutdownHookForAllClientsGoneWithTheLast() {
        int before = ShutdownHook.registeredCount();
        MemLockClient a = MemLockClient.create(server);
        MemLockClient b = MemLockClient.create(server);
        MemLockClient optedOut = MemLockClient.create(server,
                io.latchkey.ClientOptions.builder().closeOnShutdown(false).build());
        assertThat(ShutdownHook.registeredCount()).as("not before the first primitive").isEqualTo(before);
        a.lock("x");
        b.semaphore("y");
        optedOut.lock("z");
        assertThat(ShutdownHook.registeredCount()).isEqualTo(before + 2);
        assertThat(ShutdownHook.isInstalled()).isTrue();
        assertThat(Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(ShutdownHook.THREAD_NAME))).as("the hook thread starts only at exit")
                .isEmpty();
        a.close();
        b.close();
        b.close();
        optedOut.close();
        assertThat(ShutdownHook.registeredCount()).isEqualTo(before);
        if (before == 0) {
            assertThat(ShutdownHook.isInstalled()).as("removed with the last client").isFalse();
        }
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
