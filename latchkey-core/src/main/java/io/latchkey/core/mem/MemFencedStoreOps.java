package io.latchkey.core.mem;

import io.latchkey.core.FencedWrite;
import io.latchkey.core.RemoteFencedStoreOps;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the mem backend's fenced store: the data is a map of the {@link MemServer}, apart from its
 * locks, keyed by the lock's key (namespace, NUL, name), a NUL and the store key; a write checks the lock's hold
 * and applies itself under the server's one lock.
 */
final class MemFencedStoreOps implements RemoteFencedStoreOps {

    private final MemServer server;
    private final String prefix;

    MemFencedStoreOps(MemServer server, String namespace) {
        this.server = server;
        this.prefix = namespace + '\u0000';
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        return server.fencedGet(prefix + lockName, key);
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        return server.fencedWrite(prefix + lockName, token, write);
    }
}
