package io.latchkey.core.internal;

import io.latchkey.core.Arguments;
import io.latchkey.core.RemoteCountOps;

/**
 * The permit counts both semaphores share ({@code availablePermits}, {@code trySetPermits}, {@code addPermits}): one
 * round trip each, bounded by the operation timeout, on a client that must be open.
 */
final class PermitCounts {

    private final LockEngine engine;
    private final RemoteCountOps ops;
    private final String name;

    PermitCounts(LockEngine engine, RemoteCountOps ops, String name) {
        this.engine = engine;
        this.ops = ops;
        this.name = name;
    }

    int available() {
        engine.checkOpen();
        return engine.awaitRemote(ops.availablePermits(name), "availablePermits", name);
    }

    boolean trySet(int permits) {
        Arguments.notNegative("permits", permits);
        engine.checkOpen();
        return engine.awaitRemote(ops.trySetPermits(name, permits), "trySetPermits", name);
    }

    void add(int permits) {
        engine.checkOpen();
        if (permits != 0) {
            engine.awaitRemote(ops.addPermits(name, permits), "addPermits", name);
        }
    }
}
