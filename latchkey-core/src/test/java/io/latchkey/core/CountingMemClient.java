package io.latchkey.core;

import io.latchkey.ClientOptions;
import io.latchkey.core.internal.LockEngine;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.UUID;

/** A mem client whose plain and fair locks go through {@link CountingOps} (one each). */
final class CountingMemClient extends MemLockClient {
    private CountingOps ops;
    private CountingOps fairOps;

    CountingMemClient(String server, ClientOptions options) {
        super(server, options, TimeSource.SYSTEM);
    }

    static String newServer() {
        return "engine-test-" + UUID.randomUUID();
    }

    static ClientOptions shortWatchdog() {
        return ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(1))
                .operationTimeout(Duration.ofSeconds(2)).build();
    }

    @Override
    protected synchronized RemoteLockOps lockOps() {
        if (ops == null) {
            ops = new CountingOps(super.lockOps());
        }
        return ops;
    }

    synchronized CountingOps counting() {
        return (CountingOps) lockOps();
    }

    @Override
    protected synchronized RemoteLockOps fairLockOps() {
        if (fairOps == null) {
            fairOps = new CountingOps(super.fairLockOps());
        }
        return fairOps;
    }

    synchronized CountingOps countingFair() {
        return (CountingOps) fairLockOps();
    }

    LockEngine engineForTest() {
        return ((AbstractLockClient) this).engine();
    }
}
