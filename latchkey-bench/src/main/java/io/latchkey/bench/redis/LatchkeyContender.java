package io.latchkey.bench.redis;

import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.bench.Contender;
import io.latchkey.bench.Cycle;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Scenario;
import java.time.Duration;

/**
 * Latchkey's Redis locks and synchronizers through the public API only, connected with
 * {@code LockClient.connect(uri)}.
 */
final class LatchkeyContender implements Contender {

    private final LockClient client;
    private final Duration lease;

    LatchkeyContender(String redisUri, Duration lease) {
        this.client = LockClient.connect(redisUri);
        this.lease = lease;
    }

    @Override
    public String name() {
        return "Latchkey";
    }

    @Override
    public String setup() {
        return "`LockClient.connect(uri)` with default `ClientOptions` (watchdog 30 s): the Redis backend's own "
                + "connections (one multiplexed Lettuce command connection plus one pub/sub connection by design)";
    }

    @Override
    public Cycle.PerThread cycles(Scenario scenario, String runId) {
        String prefix = "bench:lk:" + runId + ":";
        return switch (scenario.primitive()) {
            case LOCK, READ_LOCK, WRITE_LOCK, FAIR_LOCK -> lockCycles(scenario, prefix);
            case SEMAPHORE -> semaphoreCycles(scenario, prefix);
            case PERMIT_SEMAPHORE -> threadIndex -> {
                PermitExpirableSemaphore semaphore = client.permitExpirableSemaphore(prefix + threadIndex);
                semaphore.trySetPermits(RedisSyncComparison.permits(scenario));
                return () -> semaphore.release(semaphore.acquire(lease));
            };
            case COUNT_DOWN_LATCH -> threadIndex -> {
                DistributedCountDownLatch latch = client.countDownLatch(prefix + threadIndex);
                return () -> {
                    latch.trySetCount(1);
                    latch.countDown();
                    latch.await();
                };
            };
        };
    }

    private Cycle.PerThread lockCycles(Scenario scenario, String prefix) {
        DistributedLock shared = scenario.contended() ? lock(scenario, prefix + "shared") : null;
        return threadIndex -> {
            DistributedLock lock = shared != null ? shared : lock(scenario, prefix + threadIndex);
            if (scenario.mode() == LeaseMode.WATCHDOG) {
                return () -> {
                    lock.lock();
                    lock.unlock();
                };
            }
            return () -> {
                lock.lock(lease);
                lock.unlock();
            };
        };
    }

    private DistributedLock lock(Scenario scenario, String name) {
        return switch (scenario.primitive()) {
            case READ_LOCK -> client.readWriteLock(name).readLock();
            case WRITE_LOCK -> client.readWriteLock(name).writeLock();
            case FAIR_LOCK -> client.fairLock(name);
            default -> client.lock(name);
        };
    }

    private Cycle.PerThread semaphoreCycles(Scenario scenario, String prefix) {
        DistributedSemaphore shared = scenario.contended() ? semaphore(scenario, prefix + "shared") : null;
        return threadIndex -> {
            DistributedSemaphore semaphore = shared != null ? shared : semaphore(scenario, prefix + threadIndex);
            return () -> {
                semaphore.acquire();
                semaphore.release();
            };
        };
    }

    private DistributedSemaphore semaphore(Scenario scenario, String name) {
        DistributedSemaphore semaphore = client.semaphore(name);
        semaphore.trySetPermits(RedisSyncComparison.permits(scenario));
        return semaphore;
    }

    @Override
    public void close() {
        client.close();
    }
}
