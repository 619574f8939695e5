package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.latchkey.ClientOptions;
import io.latchkey.LockLease;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.RemoteLockOps.Attempt;
import io.latchkey.core.TimeSource;
import io.latchkey.etcd.internal.EtcdLockOps;
import io.latchkey.etcd.internal.EtcdSession;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The re-check hint of a queued answer: the TTL of the awaited key's lease (named in the key's value) and a margin,
 * so that a waiter whose watch event is lost looks again when a holder that died can have lost its key; an awaited key
 * that names no TTL (an earlier version's) keeps the flat fallback. Driven at the ops level, where nothing watches:
 * only the hints make the waiter look again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdRecheckHintTest {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final List<AutoCloseable> closeAfter = new ArrayList<>();
    private EtcdLockClient holder;
    private Client jetcd;
    private EtcdLockOps waiterOps;
    private String waiterId;

    @BeforeEach
    void open() {
        holder = EtcdLockClient.connect(etcd.uri(), ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3))
                .operationTimeout(Duration.ofSeconds(3)).build());
        closeAfter.add(holder);
        jetcd = Client.builder().endpoints(etcd.endpoint()).build();
        closeAfter.add(jetcd);
        waiterId = UUID.randomUUID().toString();
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor(r -> new Thread(r, "etcd-recheck-test-timer"));
        closeAfter.add(timer::shutdownNow);
        EtcdSession session = new EtcdSession(Client.builder().endpoints(etcd.endpoint()).build(), true,
                etcd.endpoint(), Duration.ofSeconds(3), Duration.ofSeconds(30),
                io.latchkey.core.MaintenanceScheduler.of(timer), "etcd-recheck-test");
        closeAfter.add(0, session);
        waiterOps = new EtcdLockOps(session, holder::lockPrefix, waiterId, (g, why) -> { },
                EtcdLockOps.Kind.EXCLUSIVE);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
    }

    private AcquireRequest waiting(String name) {
        return new AcquireRequest(name, waiterId + ":1", 30_000, true, AcquireRequest.NO_DEADLINE, TimeSource.SYSTEM);
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private KeyValue onlyKey(String prefix) throws Exception {
        List<KeyValue> kvs = jetcd.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build())
                .get(5, TimeUnit.SECONDS).getKvs();
        assertThat(kvs).hasSize(1);
        return kvs.get(0);
    }

    private static long ttlNamed(KeyValue kv) {
        String v = kv.getValue().toString(StandardCharsets.UTF_8);
        int i = v.indexOf("\nttl=");
        assertThat(i).as("the key's value names its lease's TTL: %s", v).isPositive();
        int end = v.indexOf('\n', i + 1);
        return Long.parseLong(v.substring(i + 5, end < 0 ? v.length() : end));
    }

    @Test
    void behindAWatchdogHolderTheHintIsTheClientLeasesTtlAndAMargin() throws Exception {
        String name = "hint-watchdog-" + UUID.randomUUID();
        holder.lock(name).lock();
        KeyValue held = onlyKey(holder.lockPrefix(name));
        assertThat(ttlNamed(held)).isEqualTo(3);

        Attempt first = waiterOps.tryAcquire(waiting(name), null).get(5, TimeUnit.SECONDS);
        assertThat(first.isGranted()).isFalse();
        assertThat(first.recheckNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(3) + MARGIN_NANOS);
        Attempt again = waiterOps.tryAcquire(waiting(name), first.entry()).get(5, TimeUnit.SECONDS);
        assertThat(again.entry()).isEqualTo(first.entry());
        assertThat(again.recheckNanos()).isEqualTo(first.recheckNanos());
        holder.lock(name).unlock();
        Attempt granted = waiterOps.tryAcquire(waiting(name), first.entry()).get(5, TimeUnit.SECONDS);
        assertThat(granted.isGranted()).isTrue();
        assertThat(waiterOps.release(granted.grant()).get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void behindAFixedLeaseTheHintIsThatLeasesTtl() throws Exception {
        String name = "hint-fixed-" + UUID.randomUUID();
        LockLease lease = holder.lock(name).acquire(Duration.ofSeconds(7));
        long ttl = ttlNamed(onlyKey(holder.lockPrefix(name)));
        assertThat(ttl).isEqualTo(7);
        Attempt first = waiterOps.tryAcquire(waiting(name), null).get(5, TimeUnit.SECONDS);
        assertThat(first.recheckNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(7) + MARGIN_NANOS);
        lease.release();
        Attempt granted = waiterOps.tryAcquire(waiting(name), first.entry()).get(5, TimeUnit.SECONDS);
        assertThat(granted.isGranted()).isTrue();
        waiterOps.release(granted.grant()).get(5, TimeUnit.SECONDS);
    }

    @Test
    void aWaiterThatLooksAgainAtTheHintFindsADeadHoldersKeyGone() throws Exception {
        String name = "hint-dead-" + UUID.randomUUID();
        String prefix = holder.lockPrefix(name);
        // a holder that dies at once: its key on a lease of 2 s that nobody keeps alive
        long lease = jetcd.getLeaseClient().grant(2).get(5, TimeUnit.SECONDS).getID();
        long diedAt = System.nanoTime();
        jetcd.getKVClient().put(bytes(prefix + "dead-1"), bytes("dead:1\nttl=2"),
                PutOption.builder().withLeaseId(lease).build()).get(5, TimeUnit.SECONDS);

        Attempt first = waiterOps.tryAcquire(waiting(name), null).get(5, TimeUnit.SECONDS);
        assertThat(first.isGranted()).isFalse();
        long hint = first.recheckNanos();
        assertThat(hint).isEqualTo(TimeUnit.SECONDS.toNanos(2) + MARGIN_NANOS);
        TimeUnit.NANOSECONDS.sleep(hint);
        Attempt atHint = waiterOps.tryAcquire(waiting(name), first.entry()).get(5, TimeUnit.SECONDS);
        long grantedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - diedAt);
        System.out.printf("etcd re-check hint behind a dead holder (lease 2 s): %d ms; granted at the first "
                + "re-check %d ms after the holder died%n", TimeUnit.NANOSECONDS.toMillis(hint), grantedMs);
        assertThat(atHint.isGranted()).as("the dead holder's key is gone at the hint").isTrue();
        waiterOps.release(atHint.grant()).get(5, TimeUnit.SECONDS);
    }

    @Test
    void behindAKeyThatNamesNoTtlTheHintIsTheFlatFallback() throws Exception {
        String name = "hint-old-" + UUID.randomUUID();
        String prefix = holder.lockPrefix(name);
        long lease = jetcd.getLeaseClient().grant(30).get(5, TimeUnit.SECONDS).getID();
        jetcd.getKVClient().put(bytes(prefix + "old-1"), bytes("old:1"),
                PutOption.builder().withLeaseId(lease).build()).get(5, TimeUnit.SECONDS);
        Attempt first = waiterOps.tryAcquire(waiting(name), null).get(5, TimeUnit.SECONDS);
        assertThat(first.recheckNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(10));
        jetcd.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
        Attempt granted = waiterOps.tryAcquire(waiting(name), first.entry()).get(5, TimeUnit.SECONDS);
        assertThat(granted.isGranted()).isTrue();
        waiterOps.release(granted.grant()).get(5, TimeUnit.SECONDS);
    }
}
