package io.latchkey.core.mem;

import io.latchkey.core.FencedWrite;
import io.latchkey.core.RemoteFencedStoreOps;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the mem backend's fenced store: the data is a map of the {@link MemServer}, apart from its
 * locks, keyed by the lock's key (namespace, NUL, name), a NUL and the store key; a write checks the lock's hold
 * and applies itself under the server's one lock.
 */
final class MemFencedStoreOps implements RemoteFencedStoreOps {

    private final MemServer server;
    private final Map<String, byte[]> data;
    private final String prefix;

    MemFencedStoreOps(MemServer server, String namespace) {
        this.server = server;
        this.data = server.fencedData;
        this.prefix = namespace + '\u0000';
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        String lockKey = prefix + lockName;
        return server.call("fenced store get", lockKey, (now, changed) -> {
            byte[] v = data.get(lockKey + '\u0000' + key);
            return Optional.ofNullable(v == null ? null : v.clone());
        });
    }

    /**
     * Under the server's lock, checks that the lock has an unexpired exclusive hold with {@code token}, then applies
     * the write: one atomic step.
     */
    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite w) {
        String lockKey = prefix + lockName;
        return server.call("fenced store " + w.kind(), lockKey, (now, changed) -> {
            if (!server.locks.holdsExclusive(lockKey, token, now, changed)) {
                return FencedWrite.Outcome.STALE;
            }
            String k = lockKey + '\u0000' + w.key();
            if (!w.matches(data.get(k))) {
                return FencedWrite.Outcome.UNCHANGED;
            }
            if (w.kind() == FencedWrite.Kind.DELETE) {
                data.remove(k);
            } else {
                data.put(k, w.value().clone());
            }
            return FencedWrite.Outcome.APPLIED;
        });
    }
}
