package io.latchkey.redis;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.Recipes;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.util.Set;

/**
 * The engine of a {@link RedisLockClient}'s spin locks — not a client of its own, though it reuses the engine's
 * client class: the engine takes one {@code lockOps()} per instance, so spin locks get a second engine (lazily
 * created, with its own watchdog thread {@code latchkey-redis-spin-watchdog-…}) on the owning client's connections.
 * Nobody outside {@link RedisSynchronizers} sees it; closing it leaves the connections to the owning client.
 */
final class SpinLockEngine extends AbstractLockClient {

    private final RemoteLockOps ops;

    SpinLockEngine(ClientOptions options, TimeSource time, RemoteLockOps ops) {
        super("redis-spin", options, time);
        this.ops = ops;
    }

    /** The remote halves of the primitives this backend offers (see the class comment). */
    @Override
    protected Recipes recipes() {
        return Recipes.builder()
                .lock(ops)
                .build();
    }

    /** A spin lock on other backoff ops (one instance per backoff pair, kept by the caller). */
    io.latchkey.DistributedLock withBackoff(String name, RemoteLockOps backoffOps) {
        return lock(name, backoffOps);
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.LOCK);
    }

    @Override
    protected void closeBackend() {
        // the connections belong to the RedisLockClient
    }
}
