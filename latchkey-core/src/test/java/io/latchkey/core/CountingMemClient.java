package io.latchkey.core;

import io.latchkey.ClientOptions;
import io.latchkey.core.internal.LockEngine;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.UUID;

/** A mem client whose plain lock goes through {@link CountingOps}. */
final class CountingMemClient extends MemLockClient {
    private CountingOps ops;

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

    LockEngine engineForTest() {
        return ((AbstractLockClient) this).engine();
    }
}
