package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** Shared helpers for tests that drive {@link RedisLockOps} directly, below the engine. */
final class RedisTestSupport {

    private RedisTestSupport() {
    }

    static ClientOptions fastOptions() {
        return ClientOptions.builder()
                .watchdogTimeout(Duration.ofMillis(600))
                .operationTimeout(Duration.ofSeconds(3)) // roomy: CI machines are shared and loaded
                .build();
    }

    static String owner() {
        return UUID.randomUUID() + ":1";
    }

    static String uniqueName(String prefix) {
        return prefix + ":" + UUID.randomUUID();
    }

    /** A request that waits at most {@code wait} (zero: a single attempt; null: forever). */
    static AcquireRequest request(String name, String owner, long leaseMillis, Duration wait) {
        long deadline = wait == null ? AcquireRequest.NO_DEADLINE
                : System.nanoTime() + wait.toNanos();
        return new AcquireRequest(name, owner, leaseMillis, false, deadline, TimeSource.SYSTEM);
    }

    static Grant acquireNow(RedisLockOps ops, String name, String owner, long leaseMillis) throws Exception {
        return ops.tryAcquire(request(name, owner, leaseMillis, Duration.ZERO), null).get(5, TimeUnit.SECONDS).grant();
    }
}
