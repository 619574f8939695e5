package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.etcd.internal.EtcdUri;
import io.latchkey.testing.EtcdServerExtension;
import io.latchkey.testing.TestFiles;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the TCK does not cover: the URI, the data layout, waking by watch, crashed holders. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdLockClientTest {

    private static final Duration WATCHDOG = Duration.ofSeconds(2);
    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
    }

    private static ClientOptions options() {
        return ClientOptions.builder().watchdogTimeout(WATCHDOG).operationTimeout(Duration.ofSeconds(3)).build();
    }

    private EtcdLockClient open() {
        EtcdLockClient c = EtcdLockClient.connect(etcd.uri(), options());
        closeAfter.add(c);
        return c;
    }

    private Client jetcd() {
        Client c = Client.builder().endpoints(etcd.endpoint()).build();
        closeAfter.add(c);
        return c;
    }

    private static String newName() {
        return "test-" + UUID.randomUUID();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static List<KeyValue> keys(Client jetcd, String prefix) throws Exception {
        return jetcd.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build())
                .get(5, TimeUnit.SECONDS).getKvs();
    }

    @Test
    void badUrisAreRejectedWithTheReasonAndWithoutThePassword() {
        List<String> bad = List.of("etcd://", "etcd://host", "etcd://host:", "etcd://host:0", "etcd://host:99999",
                "etcd://host:abc", "etcd://host:2379/path", "etcd://host:2379?x=1", "etcd://a:1,,b:2",
                "etcd://alice@host:2379", "etcd://alice:s3cret@host:port", "etcd://alice:s3cret@",
                "etcd://:2379");
        for (String uri : bad) {
            Throwable thrown = catchThrowable(() -> LockClient.connect(uri, options()));
            assertThat(thrown).as(uri).isInstanceOf(IllegalArgumentException.class);
            assertThat(thrown.getMessage()).as(uri).isNotBlank().doesNotContain("s3cret");
        }
        assertThatThrownBy(() -> EtcdUri.parse("redis://host:1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("etcd://");
    }

    @Test
    void goodUrisParse() {
        EtcdUri uri = EtcdUri.parse("etcd://alice:s%40cret@10.0.0.1:2379,10.0.0.2:2380/");
        assertThat(uri.endpoints()).containsExactly("http://10.0.0.1:2379", "http://10.0.0.2:2380");
        assertThat(uri.user()).isEqualTo("alice");
        assertThat(uri.password()).isEqualTo("s@cret");
        assertThat(uri.toString()).doesNotContain("s@cret").doesNotContain("s%40cret");
        assertThat(EtcdUri.parse("ETCD://[::1]:2379").endpoints()).containsExactly("http://[::1]:2379");
    }

    @Test
    void anUnreachableServerFailsWithLockUnavailableWithoutThePassword() {
        int deadPort = TestFiles.freePort();
        ClientOptions quick = ClientOptions.builder().operationTimeout(Duration.ofMillis(500)).build();
        long start = System.nanoTime();
        Throwable thrown = catchThrowable(
                () -> LockClient.connect("etcd://alice:s3cret@127.0.0.1:" + deadPort, quick));
        assertThat(thrown).isInstanceOf(LockUnavailableException.class);
        assertThat(thrown.getMessage()).contains("127.0.0.1:" + deadPort).doesNotContain("s3cret");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void toStringShowsNoSecretsAndTheLayoutIsOneKeyPerOwner() throws Exception {
        EtcdLockClient client = open();
        assertThat(client.toString()).contains("Etcd").contains(client.clientId()).contains(etcd.endpoint());
        assertThat(client.lockPrefix("a/b%c")).isEqualTo("latchkey/locks/a%2Fb%25c/");
        String name = newName();
        DistributedLock lock = client.lock(name);
        lock.lock();
        try {
            List<KeyValue> kvs = keys(jetcd(), client.lockPrefix(name));
            assertThat(kvs).hasSize(1);
            KeyValue holder = kvs.get(0);
            assertThat(holder.getKey().toString(StandardCharsets.UTF_8))
                    .startsWith(client.lockPrefix(name) + client.clientId() + "-");
            assertThat(holder.getValue().toString(StandardCharsets.UTF_8)).startsWith(client.clientId() + ":");
            assertThat(holder.getLease()).as("attached to the client's lease").isNotZero();
            assertThat(lock.fencingToken()).hasValue(holder.getCreateRevision());
        } finally {
            lock.unlock();
        }
        assertThat(keys(jetcd(), client.lockPrefix(name))).isEmpty();
    }

    @Test
    void namespacesPrefixTheKeys() throws Exception {
        EtcdLockClient client = EtcdLockClient.connect(etcd.uri(),
                options().toBuilder().namespace("team/a").build());
        closeAfter.add(client);
        assertThat(client.lockPrefix("x")).isEqualTo("latchkey/team%2Fa/locks/x/");
    }

    @Test
    void aWaiterIsWokenByItsWatchNotByAPoll() throws Exception {
        String name = newName();
        DistributedLock holder = open().lock(name);
        holder.lock();
        DistributedLock waiter = open().lock(name);
        CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            waiter.lock();
            acquiredAt.complete(System.nanoTime());
            waiter.unlock();
        }, "etcd-test-waiter");
        t.setDaemon(true);
        t.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.WAITING
                || t.getState() == Thread.State.TIMED_WAITING);
        Thread.sleep(300);
        long releasedAt = System.nanoTime();
        holder.unlock();
        long woken = acquiredAt.get(30, TimeUnit.SECONDS) - releasedAt;
        // The engine's fallback re-check comes 5 s after the waiter's last look, about 4.7 s after the release; the
        // watch of the name's deletions wakes the waiter at once. Half that leaves a loaded machine room.
        assertThat(Duration.ofNanos(woken)).isLessThan(Duration.ofMillis(2500));
        t.join(5000);
    }

    @Test
    void aCrashedHoldersLockIsFreeAfterItsLease() throws Exception {
        String name = newName();
        Client crashing = Client.builder().endpoints(etcd.endpoint()).build();
        EtcdLockClient crashed = EtcdLockClient.create(crashing, options());
        LockLease held = crashed.lock(name).acquire();
        assertThat(held.isValid()).isTrue();
        // The process "dies": its connection goes, so nobody keeps its lease alive or deletes its key.
        crashing.close();
        // No lower bound on the wait: how much of the TTL was left when the process died depends on scheduling.
        Optional<LockLease> next = open().lock(name).tryAcquire(WATCHDOG.plus(Duration.ofSeconds(15)));
        assertThat(next).as("free once the crashed holder's etcd lease ran out").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
        next.get().release();
        crashed.close();
    }

    @Test
    void aRevokedLeaseLosesItsHoldsAndFreesTheLock() throws Exception {
        String name = newName();
        EtcdLockClient client = open();
        LockLease held = client.lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        held.onLost(lost::incrementAndGet);
        Client admin = jetcd();
        long leaseId = keys(admin, client.lockPrefix(name)).get(0).getLease();
        admin.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);
        Optional<LockLease> next = open().lock(name).tryAcquire(Duration.ofSeconds(10));
        assertThat(next).as("free as soon as the lease is revoked").isPresent();
        await().atMost(WATCHDOG.plus(Duration.ofSeconds(10))).untilAsserted(() -> {
            assertThat(held.isValid()).isFalse();
            assertThat(lost).hasValue(1);
        });
        next.get().release();
        // The client recovers with a new lease.
        LockLease again = client.lock(name).acquire();
        assertThat(again.fencingToken()).isGreaterThan(next.get().fencingToken());
        again.release();
    }

    @Test
    void fencingTokensIncreaseAcrossClientsAndEqualTheCreateRevision() throws Exception {
        String name = newName();
        List<EtcdLockClient> clients = List.of(open(), open(), open());
        long previous = 0;
        Client admin = jetcd();
        for (int i = 0; i < 9; i++) {
            EtcdLockClient c = clients.get(i % clients.size());
            try (LockLease lease = i % 2 == 0 ? c.lock(name).acquire() : c.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                assertThat(keys(admin, c.lockPrefix(name)).get(0).getCreateRevision()).isEqualTo(lease.fencingToken());
                previous = lease.fencingToken();
            }
        }
    }

    @Test
    void aFixedLeaseHasItsOwnEtcdLeaseRoundedUpToSeconds() throws Exception {
        String name = newName();
        EtcdLockClient client = open();
        Client admin = jetcd();
        try (LockLease lease = client.lock(name).acquire(Duration.ofMillis(1500))) {
            KeyValue kv = keys(admin, client.lockPrefix(name)).get(0);
            assertThat(kv.getCreateRevision()).isEqualTo(lease.fencingToken());
            long ttl = admin.getLeaseClient().timeToLive(kv.getLease(), io.etcd.jetcd.options.LeaseOption.DEFAULT)
                    .get(5, TimeUnit.SECONDS).getGrantedTTL();
            assertThat(ttl).as("granted TTL in seconds").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void anApplicationsClientIsNotClosed() throws Exception {
        Client app = jetcd();
        EtcdLockClient client = EtcdLockClient.create(app, options());
        String name = newName();
        client.lock(name).lock();
        client.close();
        assertThat(app.getKVClient().get(bytes("x")).get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(keys(app, client.lockPrefix(name))).as("its keys went with its revoked lease").isEmpty();
    }

    @Test
    void renewsMoreHeldLocksThanOneEtcdTransactionMayHold() throws Exception {
        // etcd refuses a transaction of more than 128 operations (--max-txn-ops): the renewal reads in several.
        // A longer operation timeout than the other tests' (300 lock calls; a first connection on a busy machine).
        Duration watchdog = Duration.ofSeconds(3);
        EtcdLockClient client = EtcdLockClient.connect(etcd.uri(), ClientOptions.builder().watchdogTimeout(watchdog)
                .operationTimeout(Duration.ofSeconds(10)).build());
        closeAfter.add(client);
        String prefix = newName() + "-";
        List<DistributedLock> held = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            DistributedLock lock = client.lock(prefix + i);
            lock.lock();
            held.add(lock);
        }
        // Longer than a watchdog timeout: several renewal rounds, and a lease that was not renewed would end.
        Thread.sleep(watchdog.toMillis() + 1_000);
        assertThat(held).allSatisfy(lock -> assertThat(lock.isHeldByCurrentThread()).as(lock.name()).isTrue());
        for (DistributedLock lock : held) {
            lock.unlock();
        }
    }
}
