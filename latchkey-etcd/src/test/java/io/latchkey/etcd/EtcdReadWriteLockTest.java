package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the TCK's read-write tests do not pin down on etcd: the key layout, a downgraded read that keeps a writer
 * queued before it out, readers queued behind a waiting writer, tokens across read and write holds, no key left.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdReadWriteLockTest {

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

    private List<String> keys(String prefix) throws Exception {
        try (Client admin = Client.builder().endpoints(etcd.endpoint()).build()) {
            return admin.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                            GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE).build())
                    .get(5, TimeUnit.SECONDS).getKvs().stream()
                    .map(KeyValue::getKey).map(k -> k.toString(StandardCharsets.UTF_8).substring(prefix.length()))
                    .toList();
        }
    }

    /** Locks the write half on a thread of its own, returning the token it got (and releasing). */
    private static CompletableFuture<Long> writeInBackground(DistributedReadWriteLock rw) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                rw.writeLock().lock();
                try {
                    done.complete(rw.writeLock().fencingToken().getAsLong());
                } finally {
                    rw.writeLock().unlock();
                }
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "etcd-rw-test-writer");
        t.setDaemon(true);
        t.start();
        return done;
    }

    @Test
    void readersAndWritersQueueUnderOnePrefixWithTheirKind() throws Exception {
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        String name = "test-" + UUID.randomUUID();
        String prefix = a.readWritePrefix(name);
        assertThat(prefix).endsWith("/rw/" + name + "/");
        a.readWriteLock(name).readLock().lock();
        CompletableFuture<Long> writer = writeInBackground(b.readWriteLock(name));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(prefix).size() == 2);
        List<String> ks = keys(prefix);
        assertThat(ks.get(0)).startsWith("read-" + a.clientId());
        assertThat(ks.get(1)).startsWith("write-" + b.clientId());
        a.readWriteLock(name).readLock().unlock();
        writer.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(prefix).isEmpty());
    }

    @Test
    void aDowngradedReadKeepsOutAWriterQueuedBeforeIt() throws Exception {
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        String name = "test-" + UUID.randomUUID();
        DistributedReadWriteLock rw = a.readWriteLock(name);
        rw.writeLock().lock();
        long writeToken = rw.writeLock().fencingToken().getAsLong();
        CompletableFuture<Long> writer = writeInBackground(b.readWriteLock(name));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(a.readWritePrefix(name)).size() == 2);
        rw.readLock().lock(); // the downgrade: granted at once although a writer is queued
        long readToken = rw.readLock().fencingToken().getAsLong();
        assertThat(readToken).isGreaterThan(writeToken);
        rw.writeLock().unlock();
        Thread.sleep(500);
        assertThat(writer).as("the queued writer got in while the downgraded read was held").isNotDone();
        rw.readLock().unlock();
        assertThat(writer.get(10, TimeUnit.SECONDS)).isGreaterThan(readToken);
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(a.readWritePrefix(name)).isEmpty());
    }

    @Test
    void aReaderQueuesBehindAWaitingWriterAndTokensKeepGrowing() throws Exception {
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        EtcdLockClient c = open();
        String name = "test-" + UUID.randomUUID();
        DistributedReadWriteLock first = a.readWriteLock(name);
        first.readLock().lock();
        long readToken = first.readLock().fencingToken().getAsLong();
        CompletableFuture<Long> writer = writeInBackground(b.readWriteLock(name));
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(a.readWritePrefix(name)).size() == 2);
        DistributedReadWriteLock late = c.readWriteLock(name);
        assertThat(late.readLock().tryLock()).as("a reader overtaking a waiting writer").isFalse();
        first.readLock().unlock();
        long writeToken = writer.get(10, TimeUnit.SECONDS);
        assertThat(writeToken).isGreaterThan(readToken);
        assertThat(late.readLock().tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThat(late.readLock().fencingToken().getAsLong()).isGreaterThan(writeToken);
        late.readLock().unlock();
        await().atMost(Duration.ofSeconds(10)).until(() -> keys(a.readWritePrefix(name)).isEmpty());
    }
}
