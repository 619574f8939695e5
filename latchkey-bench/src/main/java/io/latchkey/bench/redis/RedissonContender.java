package io.latchkey.bench.redis;

import io.latchkey.bench.Contender;
import io.latchkey.bench.Cycle;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * Redisson's {@code RLock} and synchronizers with Redisson's own defaults (single server, default codec and pools).
 */
final class RedissonContender implements Contender {

    private final RedissonClient redisson;
    private final String setup;
    private final long leaseMillis;

    RedissonContender(String redisUri, Duration lease) {
        Config config = new Config();
        SingleServerConfig server = config.useSingleServer().setAddress(redisUri);
        this.setup = String.format("`Redisson.create(config)` with `useSingleServer().setAddress(uri)` and every "
                        + "other setting at Redisson's default: codec %s, connection pool %d (min idle %d), "
                        + "subscription pool %d, %d Netty threads, lock watchdog %d ms",
                config.getCodec() == null ? "default (Kryo5Codec)" : config.getCodec().getClass().getSimpleName(),
                server.getConnectionPoolSize(), server.getConnectionMinimumIdleSize(),
                server.getSubscriptionConnectionPoolSize(), config.getNettyThreads(), config.getLockWatchdogTimeout());
        this.redisson = Redisson.create(config);
        this.leaseMillis = lease.toMillis();
    }

    @Override
    public String name() {
        return "Redisson";
    }

    @Override
    public String setup() {
        return setup;
    }

    @Override
    public Cycle.PerThread cycles(Scenario scenario, String runId) {
        String prefix = "bench:rs:" + runId + ":";
        return switch (scenario.primitive()) {
            case LOCK, READ_LOCK, WRITE_LOCK, FAIR_LOCK -> lockCycles(scenario, prefix);
            case SEMAPHORE -> semaphoreCycles(scenario, prefix);
            case PERMIT_SEMAPHORE -> threadIndex -> {
                RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(prefix + threadIndex);
                semaphore.trySetPermits(RedisSyncComparison.permits(scenario));
                return () -> semaphore.release(semaphore.acquire(leaseMillis, TimeUnit.MILLISECONDS));
            };
            case COUNT_DOWN_LATCH -> threadIndex -> {
                RCountDownLatch latch = redisson.getCountDownLatch(prefix + threadIndex);
                return () -> {
                    latch.trySetCount(1);
                    latch.countDown();
                    latch.await();
                };
            };
        };
    }

    private Cycle.PerThread lockCycles(Scenario scenario, String prefix) {
        RLock shared = scenario.contended() ? lock(scenario, prefix + "shared") : null;
        return threadIndex -> {
            RLock lock = shared != null ? shared : lock(scenario, prefix + threadIndex);
            if (scenario.mode() == LeaseMode.WATCHDOG) {
                return () -> {
                    lock.lock();
                    lock.unlock();
                };
            }
            return () -> {
                lock.lock(leaseMillis, TimeUnit.MILLISECONDS);
                lock.unlock();
            };
        };
    }

    private RLock lock(Scenario scenario, String name) {
        return switch (scenario.primitive()) {
            case READ_LOCK -> redisson.getReadWriteLock(name).readLock();
            case WRITE_LOCK -> redisson.getReadWriteLock(name).writeLock();
            case FAIR_LOCK -> redisson.getFairLock(name);
            default -> redisson.getLock(name);
        };
    }

    private Cycle.PerThread semaphoreCycles(Scenario scenario, String prefix) {
        RSemaphore shared = scenario.contended() ? semaphore(scenario, prefix + "shared") : null;
        return threadIndex -> {
            RSemaphore semaphore = shared != null ? shared : semaphore(scenario, prefix + threadIndex);
            return () -> {
                semaphore.acquire();
                semaphore.release();
            };
        };
    }

    private RSemaphore semaphore(Scenario scenario, String name) {
        RSemaphore semaphore = redisson.getSemaphore(name);
        semaphore.trySetPermits(RedisSyncComparison.permits(scenario));
        return semaphore;
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
