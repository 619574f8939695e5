package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Capability;
import io.latchkey.FencedStore;
import io.latchkey.LeaderElection;
import io.latchkey.Leadership;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.StaleLeaseException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fenced store ({@link LockClient#fencedStore}): writes applied only while the writer's lease is the lock's
 * current hold, checked by the server in the same atomic step; stale leases (released, expired, superseded) refused
 * with {@link StaleLeaseException} and nothing changed; reads without a lease; the data kept when nobody holds the
 * lock; bad keys, sizes and leases of other locks rejected.
 */
public abstract class FencedStoreTck extends TckBase {

    @BeforeEach
    final void requireStore() {
        assumeCapability(Capability.FENCED_STORE);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(Optional<byte[]> v) {
        return v.map(x -> new String(x, StandardCharsets.UTF_8)).orElse(null);
    }

    @Test
    void putGetCompareAndSetDeleteWithTheCurrentLease() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        assertThat(store.lockName()).isEqualTo(name);
        assertThat(store.get("stock")).isEmpty();
        try (LockLease lease = client().lock(name).acquire()) {
            store.put(lease, "stock", b("10"));
            assertThat(s(store.get("stock"))).isEqualTo("10");
            assertThat(store.compareAndSet(lease, "stock", b("9"), b("8"))).isFalse();
            assertThat(s(store.get("stock"))).isEqualTo("10");
            assertThat(store.compareAndSet(lease, "stock", b("10"), b("9"))).isTrue();
            assertThat(s(store.get("stock"))).isEqualTo("9");
            store.put(lease, "stock", b("7"));
            assertThat(s(store.get("stock"))).isEqualTo("7");
            assertThat(store.delete(lease, "stock")).isTrue();
            assertThat(store.get("stock")).isEmpty();
            assertThat(store.delete(lease, "stock")).isFalse();
            store.putString(lease, "note", "héllo");
            assertThat(store.getString("note")).contains("héllo");
        }
    }

    @Test
    void compareAndSetWithNullExpectedWritesOnlyIfAbsent() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        try (LockLease lease = client().lock(name).acquire()) {
            assertThat(store.compareAndSet(lease, "k", null, b("first"))).isTrue();
            assertThat(store.compareAndSet(lease, "k", null, b("second"))).isFalse();
            assertThat(s(store.get("k"))).isEqualTo("first");
            assertThat(store.compareAndSet(lease, "empty", null, new byte[0])).isTrue();
            assertThat(store.get("empty")).hasValueSatisfying(v -> assertThat(v).isEmpty());
            assertThat(store.compareAndSet(lease, "empty", null, b("x"))).isFalse();
            assertThat(store.compareAndSet(lease, "empty", new byte[0], b("x"))).isTrue();
        }
    }

    @Test
    void binaryValuesAndUnusualKeysRoundTrip() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        String[] keys = {"a/b", "../../etc", "{tag}", "with space", "ключ", "*", "x".repeat(FencedStore.MAX_KEY_LENGTH)};
        try (LockLease lease = client().lock(name).acquire()) {
            for (String key : keys) {
                store.put(lease, key, binary);
            }
            store.put(lease, "big", new byte[FencedStore.MAX_VALUE_BYTES]);
        }
        for (String key : keys) {
            assertThat(store.get(key)).as(key).hasValueSatisfying(v -> assertThat(v).isEqualTo(binary));
        }
        assertThat(store.get("big")).hasValueSatisfying(v -> assertThat(v).hasSize(FencedStore.MAX_VALUE_BYTES));
        assertThat(store.get("a")).isEmpty();
        // the store's data is not the lock's: the lock is free and a new holder gets it at once
        assertThat(client().lock(name).isLocked()).isFalse();
        assertThat(openClient().lock(name).tryLock()).isTrue();
    }

    private void assertEveryWriteStale(FencedStore store, LockLease lease, String key, String unchanged) {
        assertThatThrownBy(() -> store.put(lease, key, b("stale"))).isInstanceOf(StaleLeaseException.class)
                .hasMessageContaining(store.lockName());
        assertThatThrownBy(() -> store.compareAndSet(lease, key, b(unchanged), b("stale")))
                .isInstanceOf(StaleLeaseException.class);
        assertThatThrownBy(() -> store.compareAndSet(lease, key + ":new", null, b("stale")))
                .isInstanceOf(StaleLeaseException.class);
        assertThatThrownBy(() -> store.delete(lease, key)).isInstanceOf(StaleLeaseException.class);
        assertThatThrownBy(() -> store.putAsync(lease, key, b("stale")).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleLeaseException.class);
        assertThat(s(store.get(key))).isEqualTo(unchanged);
        assertThat(store.get(key + ":new")).isEmpty();
    }

    @Test
    void everyWriteIsRefusedAfterRelease() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockLease lease = client().lock(name).acquire();
        store.put(lease, "k", b("v1"));
        lease.release();
        assertEveryWriteStale(store, lease, "k", "v1");
    }

    @Test
    void everyWriteIsRefusedAfterTheLeaseExpired() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockLease lease = client().lock(name).acquire(Duration.ofMillis(500));
        store.put(lease, "k", b("v1"));
        await().atMost(Duration.ofMillis(500).plus(slack())).until(() -> !client().lock(name).isLocked());
        assertEveryWriteStale(store, lease, "k", "v1");
    }

    @Test
    void theOldHoldersWritesAreRefusedOnceAnotherHolderTookTheLock() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockLease old = client().lock(name).acquire(Duration.ofMillis(500));
        store.put(old, "k", b("old"));
        LockClient other = openClient();
        FencedStore otherStore = other.fencedStore(name);
        Optional<LockLease> next = other.lock(name).tryAcquire(Duration.ofMillis(500).plus(slack()));
        assertThat(next).isPresent();
        try (LockLease current = next.get()) {
            assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());
            assertEveryWriteStale(store, old, "k", "old");
            otherStore.put(current, "k", b("new"));
            assertThat(s(store.get("k"))).isEqualTo("new");
            assertThatThrownBy(() -> store.put(old, "k", b("stale"))).isInstanceOf(StaleLeaseException.class);
            assertThat(s(otherStore.get("k"))).isEqualTo("new");
        }
    }

    @Test
    void aSecondHoldOfTheSameClientFencesTheFirst() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockLease first = client().lock(name).acquire();
        first.release();
        try (LockLease second = client().lock(name).acquire()) {
            store.put(second, "k", b("second"));
            assertThatThrownBy(() -> store.put(first, "k", b("first"))).isInstanceOf(StaleLeaseException.class);
            assertThat(s(store.get("k"))).isEqualTo("second");
        }
    }

    @Test
    void aLockPassedToAnotherWaiterOfTheClientFencesTheFormerHolder() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockLease first = client().lock(name).acquire();
        store.put(first, "k", b("first"));
        Forked<LockLease> waiter = fork("next-holder", () -> client().lock(name).acquire());
        awaitBlocked(waiter);
        first.release();
        LockLease next = waiter.get(slack());
        try {
            assertThatThrownBy(() -> store.put(first, "k", b("stale"))).isInstanceOf(StaleLeaseException.class);
            assertThat(s(store.get("k"))).isEqualTo("first");
            store.put(next, "k", b("next"));
            assertThat(s(store.get("k"))).isEqualTo("next");
        } finally {
            next.release();
        }
    }

    @Test
    void aWaiterOfAnotherClientWritesAtOnceWhenItGetsTheLock() throws Exception {
        String name = newName();
        LockClient other = openClient();
        FencedStore store = other.fencedStore(name);
        for (int round = 0; round < 5; round++) {
            LockLease first = client().lock(name).acquire();
            Forked<LockLease> waiter = fork("queued-" + round, () -> other.lock(name).acquire());
            awaitBlocked(waiter);
            first.release();
            LockLease next = waiter.get(slack());
            try {
                store.put(next, "k", b("round " + round));   // right after a queued grant, no pause
                assertThat(s(store.get("k"))).isEqualTo("round " + round);
            } finally {
                next.release();
            }
        }
    }

    @Test
    void aLeaseOfAnotherLockIsRejected() throws Exception {
        String name = newName();
        String otherName = newName();
        FencedStore store = client().fencedStore(name);
        try (LockLease mine = client().lock(name).acquire(); LockLease other = client().lock(otherName).acquire()) {
            assertThatThrownBy(() -> store.put(other, "k", b("x"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(otherName).hasMessageContaining(name);
            assertThatThrownBy(() -> store.compareAndSet(other, "k", null, b("x")))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.delete(other, "k")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.putAsync(other, "k", b("x"))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.put((LockLease) null, "k", b("x")))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.get("k")).isEmpty();
            assertThat(client().fencedStore(otherName).get("k")).isEmpty();
        }
    }

    @Test
    void badKeysAndSizesAreRejectedWithTheReason() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        try (LockLease lease = client().lock(name).acquire()) {
            assertThatThrownBy(() -> store.put(lease, "", b("x"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("empty");
            assertThatThrownBy(() -> store.put(lease, null, b("x"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> store.put(lease, "x".repeat(FencedStore.MAX_KEY_LENGTH + 1), b("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
            assertThatThrownBy(() -> store.put(lease, "a\nb", b("x"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("control character");
            assertThatThrownBy(() -> store.get("a\u0000b")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.put(lease, "k", null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> store.put(lease, "k", new byte[FencedStore.MAX_VALUE_BYTES + 1]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
            assertThatThrownBy(() -> store.compareAndSet(lease, "k", new byte[FencedStore.MAX_VALUE_BYTES + 1],
                    b("x"))).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.get("k")).isEmpty();
        }
        assertThatThrownBy(() -> client().fencedStore("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDataStaysWhenNobodyHoldsTheLock() throws Exception {
        String name = newName();
        try (LockLease lease = client().lock(name).acquire()) {
            client().fencedStore(name).put(lease, "stock", b("5"));
        }
        assertThat(client().lock(name).isLocked()).isFalse();
        LockClient other = openClient();
        FencedStore store = other.fencedStore(name);
        assertThat(s(store.get("stock"))).isEqualTo("5");
        try (LockLease lease = other.lock(name).acquire()) {
            assertThat(store.compareAndSet(lease, "stock", b("5"), b("4"))).isTrue();
        }
        assertThat(s(client().fencedStore(name).get("stock"))).isEqualTo("4");
        // the stores of two locks are apart
        assertThat(client().fencedStore(newName()).get("stock")).isEmpty();
    }

    @Test
    void asyncWritesAreFencedLikeBlockingOnes() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockLease lease = client().lock(name).acquire();
        store.putAsync(lease, "k", b("1")).get(5, TimeUnit.SECONDS);
        assertThat(store.compareAndSetAsync(lease, "k", b("1"), b("2")).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(s(store.getAsync("k").get(5, TimeUnit.SECONDS))).isEqualTo("2");
        assertThat(store.deleteAsync(lease, "k").get(5, TimeUnit.SECONDS)).isTrue();
        lease.release();
        assertThatThrownBy(() -> store.compareAndSetAsync(lease, "k", null, b("3")).join())
                .hasCauseInstanceOf(StaleLeaseException.class);
        assertThat(store.get("k")).isEmpty();
    }

    @Test
    void aLeadershipFencesWritesLikeALease() throws Exception {
        String election = newName();
        LeaderElection e = client().leaderElection(election);
        FencedStore store = client().fencedStore(FencedStore.electionLockName(election));
        FencedStore wrong = client().fencedStore(newName());
        Leadership leadership = e.awaitLeadership();
        store.put(leadership, "epoch", b("1"));
        assertThat(store.compareAndSet(leadership, "epoch", b("1"), b("2"))).isTrue();
        assertThat(s(store.get("epoch"))).isEqualTo("2");
        assertThatThrownBy(() -> wrong.put(leadership, "epoch", b("x"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(election);
        leadership.close();
        assertThatThrownBy(() -> store.put(leadership, "epoch", b("3"))).isInstanceOf(StaleLeaseException.class);
        assertThatThrownBy(() -> store.delete(leadership, "epoch")).isInstanceOf(StaleLeaseException.class);
        assertThat(s(store.get("epoch"))).isEqualTo("2");
    }

    @Test
    void concurrentHoldersNeverLoseAnUpdate() throws Exception {
        String name = newName();
        FencedStore store = client().fencedStore(name);
        LockClient other = openClient();
        int perWorker = 15;
        Forked<Void> a = fork("store-a", () -> increments(client(), name, perWorker));
        Forked<Void> c = fork("store-b", () -> increments(other, name, perWorker));
        a.get(Duration.ofSeconds(60));
        c.get(Duration.ofSeconds(60));
        assertThat(s(store.get("n"))).isEqualTo(Integer.toString(2 * perWorker));
    }

    private static Void increments(LockClient c, String name, int times) throws Exception {
        FencedStore store = c.fencedStore(name);
        for (int i = 0; i < times; i++) {
            try (LockLease lease = c.lock(name).acquire()) {
                int n = store.get("n").map(v -> Integer.parseInt(new String(v, StandardCharsets.UTF_8))).orElse(0);
                store.put(lease, "n", b(Integer.toString(n + 1)));
            }
        }
        return null;
    }

    @Test
    void theClientListsTheCapability() {
        assertThat(client().capabilities()).contains(Capability.FENCED_STORE);
        assertThat(Arrays.asList(Capability.values())).contains(Capability.FENCED_STORE);
    }
}
