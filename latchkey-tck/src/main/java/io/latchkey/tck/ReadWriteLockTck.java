package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Capability;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#readWriteLock}: readers share across clients, a writer excludes everyone, a writer may
 * downgrade, a reader may not upgrade (refused, not deadlocked), and each read hold has its own lease. Skipped
 * (with the reason) for backends without {@link Capability#READ_WRITE_LOCK}.
 */
public abstract class ReadWriteLockTck extends TckBase {

    @BeforeEach
    final void requireReadWriteLocks() {
        assumeCapability(Capability.READ_WRITE_LOCK);
    }

    @Test
    void readersShareAcrossClientsAndThreads() throws Exception {
        String name = newName();
        DistributedReadWriteLock rw = client().readWriteLock(name);
        assertThat(rw.name()).isEqualTo(name);
        DistributedReadWriteLock other = openClient().readWriteLock(name);
        rw.readLock().lock();
        try {
            assertThat(other.readLock().tryLock()).isTrue();
            Forked<Boolean> sameClientThread = fork("reader", () -> {
                DistributedLock read = rw.readLock();
                if (!read.tryLock()) {
                    return false;
                }
                read.unlock();
                return true;
            });
            assertThat(sameClientThread.get(slack())).isTrue();
            other.readLock().unlock();
            assertThat(other.writeLock().tryLock()).as("write while a read is held").isFalse();
        } finally {
            rw.readLock().unlock();
        }
        assertThat(other.writeLock().tryLock()).isTrue();
        other.writeLock().unlock();
    }

    @Test
    void aWriterExcludesReadersAndWriters() throws Exception {
        String name = newName();
        DistributedReadWriteLock rw = client().readWriteLock(name);
        DistributedReadWriteLock other = openClient().readWriteLock(name);
        rw.writeLock().lock();
        try {
            assertThat(rw.writeLock().isLocked()).isTrue();
            assertThat(other.readLock().tryLock()).isFalse();
            assertThat(other.writeLock().tryLock()).isFalse();
            assertThat(other.readLock().tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            Forked<Boolean> sameClientThread = fork("reader", () -> rw.readLock().tryLock());
            assertThat(sameClientThread.get(slack())).isFalse();
        } finally {
            rw.writeLock().unlock();
        }
        assertThat(other.readLock().tryLock()).isTrue();
        other.readLock().unlock();
    }

    @Test
    void aWaitingWriterGetsInWhenTheLastReaderLeaves() throws Exception {
        String name = newName();
        List<DistributedReadWriteLock> readers = List.of(client().readWriteLock(name),
                openClient().readWriteLock(name));
        for (DistributedReadWriteLock r : readers) {
            r.readLock().lock();
        }
        LockClient writerClient = openClient();
        Forked<Long> writer = fork("writer", () -> {
            DistributedLock write = writerClient.readWriteLock(name).writeLock();
            write.lock();
            try {
                return write.fencingToken().getAsLong();
            } finally {
                write.unlock();
            }
        });
        awaitBlocked(writer);
        readers.get(0).readLock().unlock();
        Thread.sleep(200);
        assertThat(writer.isDone()).as("writer got in while a reader remained").isFalse();
        readers.get(1).readLock().unlock();
        writer.get(slack());
    }

    @Test
    void reentrancyOfBothHalves() {
        DistributedReadWriteLock rw = client().readWriteLock(newName());
        rw.readLock().lock();
        rw.readLock().lock();
        assertThat(rw.readLock().getHoldCount()).isEqualTo(2);
        rw.readLock().unlock();
        rw.readLock().unlock();
        assertThat(rw.readLock().isHeldByCurrentThread()).isFalse();
        rw.writeLock().lock();
        rw.writeLock().lock();
        assertThat(rw.writeLock().getHoldCount()).isEqualTo(2);
        rw.writeLock().unlock();
        rw.writeLock().unlock();
        assertThat(rw.writeLock().isLocked()).isFalse();
        assertThatThrownBy(rw.writeLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(rw.readLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aWriterMayDowngrade() throws Exception {
        String name = newName();
        DistributedReadWriteLock rw = client().readWriteLock(name);
        DistributedReadWriteLock other = openClient().readWriteLock(name);
        rw.writeLock().lock();
        rw.readLock().lock();
        rw.writeLock().unlock();
        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(other.readLock().tryLock()).as("another reader after the downgrade").isTrue();
        other.readLock().unlock();
        assertThat(other.writeLock().tryLock()).as("a writer while the downgraded read is held").isFalse();
        rw.readLock().unlock();
        assertThat(other.writeLock().tryLock()).isTrue();
        other.writeLock().unlock();
    }

    @Test
    void aReaderIsRefusedTheWriteLockInsteadOfDeadlocking() throws Exception {
        DistributedReadWriteLock rw = client().readWriteLock(newName());
        rw.readLock().lock();
        try {
            assertThatThrownBy(() -> rw.writeLock().tryLock()).isInstanceOf(IllegalMonitorStateException.class);
            assertThatThrownBy(() -> rw.writeLock().lock()).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(rw.readLock().getHoldCount()).isEqualTo(1);
        } finally {
            rw.readLock().unlock();
        }
    }

    @Test
    void eachReadHoldHasItsOwnLease() throws Exception {
        String name = newName();
        DistributedReadWriteLock shortReader = client().readWriteLock(name);
        DistributedReadWriteLock longReader = openClient().readWriteLock(name);
        DistributedLock write = openClient().readWriteLock(name).writeLock();
        shortReader.readLock().lock(Duration.ofMillis(300));
        Optional<LockLease> longRead = longReader.readLock().tryAcquire(Duration.ZERO);
        assertThat(longRead).isPresent();
        // The short read expires; the watchdog-renewed one keeps the writer out.
        Thread.sleep(300 + watchdogTimeout().toMillis());
        assertThat(write.tryLock()).as("write while a renewed read is held").isFalse();
        assertThat(longRead.get().isValid()).isTrue();
        longRead.get().release();
        assertThat(write.tryLock(slack().toMillis(), TimeUnit.MILLISECONDS)).as("write after both reads ended")
                .isTrue();
        write.unlock();
        assertThatThrownBy(shortReader.readLock()::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void writeTokensIncreaseAcrossClients() throws Exception {
        String name = newName();
        List<Long> tokens = new ArrayList<>();
        for (LockClient c : List.of(client(), openClient(), client(), openClient())) {
            DistributedLock write = c.readWriteLock(name).writeLock();
            write.lock();
            tokens.add(write.fencingToken().getAsLong());
            write.unlock();
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }
}
