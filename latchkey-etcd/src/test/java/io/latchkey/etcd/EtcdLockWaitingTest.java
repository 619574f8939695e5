package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiting on etcd, where the engine waits and the backend answers single attempts: a waiter's key is its place in
 * line, a waiter that leaves takes its key with it, and a waiter whose key went (deleted, its lease revoked) queues
 * again and is still woken.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdLockWaitingTest {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
    }

    private EtcdLockClient open() {
        EtcdLockClient c = EtcdLockClient.connect(etcd.uri(), ClientOptions.builder()
                .watchdogTimeout(Duration.ofSeconds(2)).operationTimeout(Duration.ofSeconds(3)).build());
        closeAfter.add(c);
        return c;
    }

    private Client jetcd() {
        Client c = Client.builder().endpoints(etcd.endpoint()).build();
        closeAfter.add(c);
        return c;
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static List<KeyValue> keys(Client jetcd, String prefix) throws Exception {
        return jetcd.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).build()).get(5, TimeUnit.SECONDS).getKvs();
    }

    private static String key(KeyValue kv) {
        return kv.getKey().toString(StandardCharsets.UTF_8);
    }

    /** Starts a thread of {@code client} that takes the lock, notes when, and releases it. */
    private static CompletableFuture<Long> waitFor(DistributedLock lock) {
        CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                lock.lock();
                acquiredAt.complete(System.nanoTime());
                lock.unlock();
            } catch (Throwable e) {
                acquiredAt.completeExceptionally(e);
            }
        }, "etcd-test-waiter");
        t.setDaemon(true);
        t.start();
        return acquiredAt;
    }

    @Test
    void aTimedOutWaiterTakesItsKeyWithItAndTheNextOneStillGetsIn() throws Exception {
        String name = "leave-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire();
        Client admin = jetcd();
        long start = System.nanoTime();
        assertThat(b.fairLock(name).tryAcquire(Duration.ofMillis(200))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(keys(admin, a.lockPrefix(name)))
                .as("only the holder's key is left").hasSize(1));
        CompletableFuture<Long> next = waitFor(b.lock(name));
        held.release();
        next.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(keys(admin, a.lockPrefix(name)))
                .isEmpty());
    }

    @Test
    void aWaiterWhoseKeyWasDeletedQueuesAgain() throws Exception {
        String name = "deleted-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire();
        Client admin = jetcd();
        CompletableFuture<Long> acquiredAt = waitFor(b.lock(name));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(admin, a.lockPrefix(name)).size() == 2);
        KeyValue waiting = keys(admin, a.lockPrefix(name)).get(1);
        assertThat(key(waiting)).contains(b.clientId());
        admin.getKVClient().delete(waiting.getKey()).get(5, TimeUnit.SECONDS);
        // woken by its own key's deletion, it puts a new one behind the holder
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<KeyValue> now = keys(admin, a.lockPrefix(name));
            assertThat(now).hasSize(2);
            assertThat(now.get(1).getCreateRevision()).isGreaterThan(waiting.getCreateRevision());
        });
        long releasedAt = System.nanoTime();
        held.release();
        assertThat(Duration.ofNanos(acquiredAt.get(30, TimeUnit.SECONDS) - releasedAt))
                .isLessThan(Duration.ofMillis(2500));
    }

    @Test
    void aWaiterWhoseLeaseWasRevokedQueuesAgainOnANewLease() throws Exception {
        String name = "revoked-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire();
        Client admin = jetcd();
        CompletableFuture<Long> acquiredAt = waitFor(b.fairLock(name));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(admin, a.lockPrefix(name)).size() == 2);
        KeyValue waiting = keys(admin, a.lockPrefix(name)).get(1);
        admin.getLeaseClient().revoke(waiting.getLease()).get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<KeyValue> now = keys(admin, a.lockPrefix(name));
            assertThat(now).hasSize(2);
            assertThat(now.get(1).getLease()).isNotEqualTo(waiting.getLease());
        });
        held.release();
        acquiredAt.get(30, TimeUnit.SECONDS);
        Optional<LockLease> after = a.lock(name).tryAcquire(Duration.ofSeconds(5));
        assertThat(after).isPresent();
        after.get().release();
    }

    @Test
    void anInterruptedWaiterLeavesNoKey() throws Exception {
        String name = "interrupt-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire();
        Client admin = jetcd();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                b.fairLock(name).lockInterruptibly();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        }, "etcd-test-interrupted");
        t.setDaemon(true);
        t.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(admin, a.lockPrefix(name)).size() == 2);
        t.interrupt();
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(keys(admin, a.lockPrefix(name)))
                .as("only the holder's key is left").hasSize(1));
        held.release();
        assertThat(b.lock(name).isLocked()).isFalse();
    }

    @Test
    void aPlainAndAFairWaiterOfOneClientShareTheNamesWatchAndBothAreWoken() throws Exception {
        String name = "shared-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire();
        Client admin = jetcd();
        CompletableFuture<Long> plain = waitFor(b.lock(name));
        CompletableFuture<Long> fair = waitFor(b.fairLock(name));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(admin, a.lockPrefix(name)).size() == 3);
        Thread.sleep(300);
        long releasedAt = System.nanoTime();
        held.release();
        // each is woken by the deletion of the key before its own, well before the engine's 5 s re-check
        long last = Math.max(plain.get(30, TimeUnit.SECONDS), fair.get(30, TimeUnit.SECONDS));
        assertThat(Duration.ofNanos(last - releasedAt)).isLessThan(Duration.ofMillis(2500));
    }
}
