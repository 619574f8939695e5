package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.core.mem.MemLockClient;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine's read-write lock on mem: shared readers, downgrade, no upgrade. */
class ReadWriteLockEngineTest {

    private final String server = CountingMemClient.newServer();
    private final MemLockClient client = MemLockClient.create(server, CountingMemClient.shortWatchdog());
    private final MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void readersShareAndExcludeWriters() throws Exception {
        DistributedReadWriteLock rw = client.readWriteLock("rw");
        int readers = 4;
        CountDownLatch allIn = new CountDownLatch(readers);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicInteger tokens = new AtomicInteger();
        Thread[] threads = new Thread[readers];
        for (int i = 0; i < readers; i++) {
            threads[i] = new Thread(() -> {
                DistributedLock read = rw.readLock();
                read.lock();
                try {
                    tokens.incrementAndGet();
                    allIn.countDown();
                    leave.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    read.unlock();
                }
            });
            threads[i].start();
        }
        assertThat(allIn.await(5, TimeUnit.SECONDS)).as("readers of one client hold side by side").isTrue();
        assertThat(other.readWriteLock("rw").readLock().tryLock()).as("and readers of another").isTrue();
        other.readWriteLock("rw").readLock().unlock();
        assertThat(other.readWriteLock("rw").writeLock().tryLock()).isFalse();
        leave.countDown();
        for (Thread t : threads) {
            t.join(5000);
        }
        assertThat(other.readWriteLock("rw").writeLock().tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(client.readWriteLock("rw").readLock().tryLock()).isFalse();
        other.readWriteLock("rw").writeLock().unlock();
    }

    @Test
    void writerMayDowngradeButReaderMayNotUpgrade() throws Exception {
        DistributedReadWriteLock rw = client.readWriteLock("grade");
        rw.writeLock().lock();
        assertThat(rw.readLock().tryLock()).as("downgrade").isTrue();
        rw.writeLock().unlock();
        assertThat(other.readWriteLock("grade").readLock().tryLock()).isTrue();
        other.readWriteLock("grade").readLock().unlock();
        assertThat(other.readWriteLock("grade").writeLock().tryLock()).isFalse();
        assertThatThrownBy(() -> rw.writeLock().lock()).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("upgrade");
        rw.readLock().unlock();
        assertThat(rw.writeLock().tryLock()).isTrue();
        rw.writeLock().unlock();
        assertThat(rw.writeLock().isLocked()).isFalse();
    }
}
