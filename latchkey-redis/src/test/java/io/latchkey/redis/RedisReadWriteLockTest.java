package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.testing.RedisServerExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis specifics of the read-write lock: writer preference, individual read leases, one slot per name. */
class RedisReadWriteLockTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient a;
    private RedisLockClient b;
    private RedisLockClient c;

    @BeforeEach
    void connect() {
        a = RedisLockClient.connect(redis.uri(), fastOptions());
        b = RedisLockClient.connect(redis.uri(), fastOptions());
        c = RedisLockClient.connect(redis.uri(), fastOptions());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
        c.close();
    }

    @Test
    void aWaitingWriterHoldsBackNewReaders() throws Exception {
        String name = uniqueName("rw-pref");
        DistributedLock readA = a.readWriteLock(name).readLock();
        readA.lock();
        CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
            DistributedLock write = b.readWriteLock(name).writeLock();
            try {
                if (!write.tryLock(10, TimeUnit.SECONDS)) {
                    return false;
                }
                Thread.sleep(100);
                write.unlock();
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        Thread.sleep(300); // the writer registers its intent
        DistributedLock readC = c.readWriteLock(name).readLock();
        assertThat(readC.tryLock(200, TimeUnit.MILLISECONDS)).as("a new reader while a writer waits").isFalse();
        readA.unlock();
        assertThat(writer.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(readC.tryLock(5, TimeUnit.SECONDS)).as("readers after the writer").isTrue();
        readC.unlock();
    }

    @Test
    void withoutWriterPreferenceNewReadersEnterWhileAWriterWaits() throws Exception {
        // Read holds that outlast a loaded machine's stalls: the writer must still be waiting when checked.
        io.latchkey.ClientOptions roomy = fastOptions().toBuilder().watchdogTimeout(java.time.Duration.ofSeconds(10))
                .build();
        try (RedisLockClient readers = RedisLockClient.connect(redis.uri(), roomy);
             RedisLockClient otherReaders = RedisLockClient.connect(redis.uri(), roomy)) {
            String name = uniqueName("rw-readers");
            DistributedLock readA = readers.readWriteLock(name, false).readLock();
            readA.lock();
            DistributedLock write = b.readWriteLock(name, false).writeLock();
            CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
                try {
                    if (!write.tryLock(30, TimeUnit.SECONDS)) {
                        return false;
                    }
                    write.unlock();
                    return true;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            Thread.sleep(300); // the writer is waiting (and, without preference, registered no intent)
            assertThat(writer).isNotDone();
            RedisReadWriteLockOps.Keys keys = new RedisReadWriteLockOps.Keys("", name, false);
            assertThat(((Number) redis.execute("EXISTS", keys.writers)).longValue()).as("writer intents").isZero();
            DistributedLock readC = otherReaders.readWriteLock(name, false).readLock();
            assertThat(readC.tryLock(10, TimeUnit.SECONDS)).as("a new reader while a writer waits").isTrue();
            assertThat(writer).as("the writer while two readers hold").isNotDone();
            readA.unlock();
            readC.unlock();
            assertThat(writer.get(20, TimeUnit.SECONDS)).as("the writer once the readers left").isTrue();
        }
    }

    @Test
    void preferenceIsOnByDefaultAndNamedInTheOps() {
        assertThat(a.synchronizers().readOps().toString()).contains("writer preference");
        assertThat(a.synchronizers().readerPreferenceReadOps().toString()).contains("reader preference");
        DistributedReadWriteLock rw = a.readWriteLock(uniqueName("rw-ref"), false);
        rw.writeLock().lock();
        rw.readLock().lock(); // downgrade works without preference too
        rw.writeLock().unlock();
        rw.readLock().unlock();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.readWriteLock("", false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWriterThatGivesUpLetsReadersIn() throws Exception {
        // A 5 s waiter heartbeat: without the withdrawal, the intent would hold readers back for seconds.
        io.latchkey.ClientOptions slow = fastOptions().toBuilder().watchdogTimeout(java.time.Duration.ofSeconds(30))
                .build();
        try (RedisLockClient writerClient = RedisLockClient.connect(redis.uri(), slow);
             RedisLockClient readerClient = RedisLockClient.connect(redis.uri(), slow)) {
            String name = uniqueName("rw-quit");
            DistributedLock readA = a.readWriteLock(name).readLock();
            readA.lock();
            DistributedLock write = writerClient.readWriteLock(name).writeLock();
            assertThat(write.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
            DistributedLock readC = readerClient.readWriteLock(name).readLock();
            long start = System.nanoTime();
            assertThat(readC.tryLock(10, TimeUnit.SECONDS)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms with a withdrawn intent")
                    .isLessThan(1_500);
            readC.unlock();
            readA.unlock();
        }
    }

    @Test
    void aCrashedReadersHoldExpiresWhileTheOthersAreRenewed() throws Exception {
        String name = uniqueName("rw-crash");
        // a's 2 s lease rides out a loaded machine's renewal stalls; b's (600 ms) is meant to run out
        RedisLockClient renewed = RedisLockClient.connect(redis.uri(), fastOptions().toBuilder()
                .watchdogTimeout(java.time.Duration.ofSeconds(2)).build());
        DistributedLock readA = renewed.readWriteLock(name).readLock();
        readA.lock();
        b.readWriteLock(name).readLock().lock();
        b.close(); // stops renewing without releasing: the hold ends with its 600 ms lease
        DistributedLock write = c.readWriteLock(name).writeLock();
        Thread.sleep(3000); // a's hold is renewed past its lease, b's has run out
        assertThat(write.tryLock()).as("write while a's read is renewed").isFalse();
        readA.unlock();
        assertThat(write.tryLock(5, TimeUnit.SECONDS)).as("write after a's release").isTrue();
        write.unlock();
        renewed.close();
    }

    @Test
    void everyKeyOfANameSharesOneSlot() {
        for (String name : new String[] {"plain", "with{tag}", "close}only", "{}", "a{b"}) {
            RedisReadWriteLockOps.Keys keys = new RedisReadWriteLockOps.Keys("ns:", name, true);
            int slot = LockKeys.slot(keys.write);
            for (String k : keys.acquire) {
                assertThat(LockKeys.slot(k)).as(k).isEqualTo(slot);
                assertThat(k).startsWith("ns:");
            }
        }
    }

    @Test
    void writeThenReadDowngradeTokensIncrease() {
        DistributedReadWriteLock rw = a.readWriteLock(uniqueName("rw-token"));
        rw.writeLock().lock();
        long write = rw.writeLock().fencingToken().getAsLong();
        rw.readLock().lock();
        long read = rw.readLock().fencingToken().getAsLong();
        rw.writeLock().unlock();
        rw.readLock().unlock();
        assertThat(read).isGreaterThan(write);
    }
}
