package io.latchkey.bench.redis;

import io.latchkey.bench.Contender;
import io.latchkey.bench.Cycle;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/** Redisson's {@code RLock} with Redisson's own defaults (single server, default codec and pools). */
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
        RLock shared = scenario.contended() ? redisson.getLock("bench:rs:" + runId + ":shared") : null;
        return threadIndex -> {
            RLock lock = shared != null ? shared : redisson.getLock("bench:rs:" + runId + ":" + threadIndex);
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

    @Override
    public void close() {
        redisson.shutdown();
    }
}
