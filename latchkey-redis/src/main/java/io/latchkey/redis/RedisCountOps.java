package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;

/**
 * What the Redis counted primitives share: the client's namespace, script executor and pub/sub channels, the
 * keys of one kind under {@link SyncKeys#base} (one hash slot per name), the kind's wake-up channel
 * {@code latchkey_<kind>__channel:<base>} and the engine's re-check (a third of the waiter heartbeat).
 */
abstract class RedisCountOps implements RemoteCountOps {

    final String namespace;
    final ScriptExecutor executor;
    final PubSubChannels channels;
    private final String kind;
    private final long recheckMillis;

    /** @param kind the kind's key segment: {@code semaphore}, {@code permits} or {@code latch} */
    RedisCountOps(String kind, String namespace, ScriptExecutor executor, PubSubChannels channels,
                  long recheckMillis) {
        this.kind = kind;
        this.namespace = namespace;
        this.executor = executor;
        this.channels = channels;
        this.recheckMillis = recheckMillis;
    }

    /** The prefix of {@code name}'s keys of this kind. */
    final String base(String name) {
        return SyncKeys.base(namespace, name, kind);
    }

    /** The channel whose messages wake the waiters of the name whose keys start with {@code base}. */
    final String channel(String base) {
        return "latchkey_" + kind + "__channel:" + base;
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return channels.subscribe(channel(base(name)), changed);
    }

    @Override
    public long recheckMillis() {
        return recheckMillis;
    }

    static int saturate(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{namespace='" + namespace + "'}";
    }
}
