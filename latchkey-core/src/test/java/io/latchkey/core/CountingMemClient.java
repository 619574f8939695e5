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
    private Recipes recipes;

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

    /** Wraps mem's plain and fair lock ops once; the engine asks once, {@link #counting()} any time. */
    @Override
    protected synchronized Recipes recipes() {
        if (ops == null) {
            Recipes mem = super.recipes();
            ops = new CountingOps(mem.lock());
            fairOps = new CountingOps(mem.fairLock());
            recipes = mem.toBuilder().lock(ops).fairLock(fairOps).build();
        }
        return recipes;
    }

    synchronized CountingOps counting() {
        recipes();
        return ops;
    }

    synchronized CountingOps countingFair() {
        recipes();
        return fairOps;
    }

    LockEngine engineForTest() {
        return ((AbstractLockClient) this).engine();
    }
}
