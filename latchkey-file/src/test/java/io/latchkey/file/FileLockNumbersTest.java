package io.latchkey.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.tck.ChildJvm;
import io.latchkey.tck.LockHolderMain;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prints what the file backend costs on this machine (for the module README), with loose sanity bounds only: an
 * uncontended lock/unlock cycle (one fsync of the token counter per grant), uncontended semaphore and permit cycles,
 * and how long after a holder JVM is SIGKILLed a waiting JVM has the lock.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileLockNumbersTest {

    @TempDir
    Path dir;

    @Test
    void uncontendedLockUnlock() {
        try (LockClient c = LockClient.connect(dir.toUri().toString())) {
            DistributedLock lock = c.lock("bench");
            for (int i = 0; i < 100; i++) {
                lock.lock();
                lock.unlock();
            }
            int n = 500;
            long[] micros = new long[n];
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                lock.lock();
                lock.unlock();
                micros[i] = (System.nanoTime() - t) / 1_000;
            }
            long total = System.nanoTime() - start;
            Arrays.sort(micros);
            System.out.printf("file backend: %d lock+unlock cycles, %.0f cycles/s, p50 %d µs, p99 %d µs%n", n,
                    n / (total / 1e9), micros[n / 2], micros[n * 99 / 100]);
            assertThat(micros[n / 2]).isLessThan(200_000);
        }
    }

    /** One semaphore acquire+release and one permit acquire+release: two read-modify-writes of a state file each. */
    @Test
    void uncontendedSemaphoreAndPermitCycles() throws Exception {
        try (LockClient c = LockClient.connect(dir.toUri().toString())) {
            DistributedSemaphore semaphore = c.semaphore("bench");
            semaphore.trySetPermits(1);
            PermitExpirableSemaphore permits = c.permitExpirableSemaphore("bench");
            permits.trySetPermits(1);
            for (int i = 0; i < 100; i++) {
                semaphore.acquire();
                semaphore.release();
                permits.release(permits.acquire(Duration.ofSeconds(30)));
            }
            int n = 500;
            long[] semaphoreMicros = new long[n];
            long[] permitMicros = new long[n];
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                semaphore.acquire();
                semaphore.release();
                long u = System.nanoTime();
                permits.release(permits.acquire(Duration.ofSeconds(30)));
                semaphoreMicros[i] = (u - t) / 1_000;
                permitMicros[i] = (System.nanoTime() - u) / 1_000;
            }
            Arrays.sort(semaphoreMicros);
            Arrays.sort(permitMicros);
            System.out.printf("file backend: %d semaphore acquire+release p50 %d µs, p99 %d µs; permit acquire+release"
                    + " p50 %d µs, p99 %d µs%n", n, semaphoreMicros[n / 2], semaphoreMicros[n * 99 / 100],
                    permitMicros[n / 2], permitMicros[n * 99 / 100]);
            assertThat(semaphoreMicros[n / 2]).isLessThan(200_000);
            assertThat(permitMicros[n / 2]).isLessThan(200_000);
        }
    }

    @Test
    void sigkilledHolderToNextHolder() throws Exception {
        String uri = dir.toUri().toString();
        try (LockClient c = LockClient.connect(uri, ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30))
                .build())) {
            DistributedLock lock = c.lock("victim");
            long[] millis = new long[3];
            for (int i = 0; i < millis.length; i++) {
                try (ChildJvm holder = ChildJvm.start("victim", LockHolderMain.class, uri, "victim", "30000")) {
                    holder.awaitLine("LOCKED", Duration.ofSeconds(40));
                    var waiting = lock.acquireAsync();
                    Thread.sleep(300);
                    holder.kill();
                    long killed = System.nanoTime();
                    var lease = waiting.get(10, TimeUnit.SECONDS);
                    millis[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                    lease.release();
                }
            }
            System.out.printf("file backend: SIGKILLed holder JVM → next holder (watchdog timeout 30 s): %s ms%n",
                    Arrays.toString(millis));
            assertThat(Arrays.stream(millis).max().getAsLong()).isLessThan(5_000);
        }
    }
}
