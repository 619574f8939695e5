package io.latchkey.bench.redis;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.bench.Contender;
import io.latchkey.bench.Cycle;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Scenario;
import java.time.Duration;

/** Latchkey's reentrant Redis lock through the public API only, connected with {@code LockClient.connect(uri)}. */
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
        DistributedLock shared = scenario.contended() ? client.lock("bench:lk:" + runId + ":shared") : null;
        return threadIndex -> {
            DistributedLock lock = shared != null ? shared : client.lock("bench:lk:" + runId + ":" + threadIndex);
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

    @Override
    public void close() {
        client.close();
    }
}
