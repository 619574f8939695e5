package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the TCK's semaphore tests do not pin down on etcd: the key layout, watchdog permits renewed past their TTL by
 * the engine's watchdog, a closed client's watchdog permits returning at once, waiters leaving no keys, and
 * concurrent takers never over-granting a permit.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdSemaphoreTest {

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

    private EtcdLockClient open() {
        EtcdLockClient c = EtcdLockClient.connect(etcd.uri(), ClientOptions.builder().watchdogTimeout(WATCHDOG)
                .operationTimeout(Duration.ofSeconds(3)).build());
        closeAfter.add(c);
        return c;
    }

    private List<KeyValue> keys(String prefix) throws Exception {
        try (Client admin = Client.builder().endpoints(etcd.endpoint()).build()) {
            return admin.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).build()).get(5, TimeUnit.SECONDS).getKvs();
        }
    }

    private static String string(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    private static String newName() {
        return "test-" + UUID.randomUUID();
    }

    @Test
    void aSemaphoreIsOneKeyHoldingItsFreePermitsAndWaitersPutNoKeys() throws Exception {
        String name = newName();
        EtcdLockClient client = open();
        DistributedSemaphore semaphore = client.semaphore(name);
        assertThat(semaphore.trySetPermits(2)).isTrue();
        semaphore.acquire(2);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return open().semaphore(name).tryAcquire(1, Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        List<KeyValue> kvs = keys("latchkey/semaphores/" + name);
        assertThat(kvs).as("one key, no waiter keys").hasSize(1);
        assertThat(string(kvs.get(0).getValue())).isEqualTo("0");
        semaphore.release();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(semaphore.availablePermits()).isZero();
    }

    @Test
    void permitsAreOneLeasedKeyEachUnderTheSemaphoresPrefix() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = open().permitExpirableSemaphore(name);
        semaphore.trySetPermits(3);
        String fixed = semaphore.acquire(Duration.ofSeconds(30));
        String renewed = semaphore.acquire();
        String prefix = "latchkey/permits/" + name + "/";
        List<String> names = keys(prefix).stream().map(kv -> string(kv.getKey()).substring(prefix.length())).toList();
        assertThat(names).containsExactlyInAnyOrder("total", "held/" + fixed, "held/" + renewed);
        for (KeyValue kv : keys(prefix + "held/")) {
            assertThat(kv.getLease()).as("a permit's key is on a lease").isNotZero();
        }
        assertThat(semaphore.release(fixed)).isTrue();
        assertThat(semaphore.release(renewed)).isTrue();
        assertThat(keys(prefix + "held/")).as("released permits leave no key").isEmpty();
    }

    @Test
    void aWatchdogPermitOutlivesItsTtlAndAClosedClientsPermitReturnsAtOnce() throws Exception {
        String name = newName();
        EtcdLockClient holder = open();
        PermitExpirableSemaphore semaphore = holder.permitExpirableSemaphore(name);
        semaphore.trySetPermits(1);
        String id = semaphore.acquire();
        Thread.sleep(WATCHDOG.toMillis() * 2);
        PermitExpirableSemaphore other = open().permitExpirableSemaphore(name);
        assertThat(other.availablePermits()).as("renewed by the watchdog past its TTL").isZero();
        assertThat(other.tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        AtomicReference<Optional<String>> next = new AtomicReference<>();
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                next.set(other.tryAcquire(Duration.ofSeconds(20), Duration.ofSeconds(30)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        long closedAt = System.nanoTime();
        holder.close();
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(next.get()).as("the closed client's permit, after its lease was revoked").isPresent();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt)).isLessThan(WATCHDOG.toMillis());
        assertThat(id).isNotEqualTo(next.get().get());
    }

    @Test
    void concurrentTakersFromManyClientsNeverOverGrant() throws Exception {
        String name = newName();
        int permits = 3;
        open().permitExpirableSemaphore(name).trySetPermits(permits);
        List<CompletableFuture<Optional<String>>> takers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            PermitExpirableSemaphore s = open().permitExpirableSemaphore(name);
            takers.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return s.tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        long granted = 0;
        for (CompletableFuture<Optional<String>> t : takers) {
            granted += t.get(20, TimeUnit.SECONDS).isPresent() ? 1 : 0;
        }
        // a taker whose transaction lost the race to another looks again at once: all permits go, never more
        assertThat(granted).isEqualTo(permits);
        assertThat(keys("latchkey/permits/" + name + "/held/")).hasSize((int) granted);
    }
}
