package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.core.MaintenanceScheduler;
import io.latchkey.core.RemoteLockOps;
import io.lettuce.core.AbstractRedisClient;
import java.time.Duration;
import java.util.function.Function;

/**
 * Everything a {@link RedisLockClient} runs on, put together once and taken apart by {@link #close()}: the two
 * connections, the script executor on the client's scheduler, the pub/sub channels, and the remote operations of
 * every primitive (wrapped for replica acknowledgement when {@link RedisOptions} asks for it).
 */
final class RedisClientWiring {

    private final AbstractRedisClient redisClient;
    private final boolean ownsClient;
    private final RedisConnections connections;
    final PubSubChannels channels;
    final RedisLockOps lockOps;
    final RedisSynchronizers synchronizers;
    final RedisInspector inspector;
    final RemoteLockOps ackedLockOps;
    final RemoteLockOps ackedFairOps;
    final RemoteLockOps ackedReadOps;
    final RemoteLockOps ackedWriteOps;
    final RedisFencedStoreOps fencedStoreOps;

    /**
     * Opens the connections by {@code connect} and wires the primitives on them.
     *
     * @param scheduler the client's scheduler: command time bounds, retried withdrawals, re-subscriptions
     * @throws io.latchkey.LockUnavailableException if the connections cannot be opened
     */
    RedisClientWiring(AbstractRedisClient redisClient, boolean ownsClient,
                      Function<Duration, RedisConnections> connect, String address, ClientOptions options,
                      RedisOptions redisOptions, String clientId, MaintenanceScheduler scheduler) {
        this.redisClient = redisClient;
        this.ownsClient = ownsClient;
        RedisErrors errors = new RedisErrors(address, options.operationTimeout());
        RedisConnections conns;
        try {
            conns = connect.apply(options.operationTimeout());
        } catch (RuntimeException e) {
            throw errors.map(e, "connect");
        }
        this.connections = conns;
        long ownTimeoutNanos = 0;
        if (redisClient.getOptions().getTimeoutOptions().isTimeoutCommands()) {
            conns.setTimeout(options.operationTimeout());
        } else {
            // An application's client without command timeouts: bound our commands ourselves.
            ownTimeoutNanos = options.operationTimeout().toNanos();
        }
        ScriptExecutor executor = new ScriptExecutor(conns.commands, errors, scheduler, ownTimeoutNanos,
                conns.cluster, conns.sharded);
        this.channels = new PubSubChannels(conns.pubSub, executor);
        redisClient.addListener(channels);
        this.lockOps = new RedisLockOps(options.namespace(), executor, channels, options.clientName());
        this.synchronizers = new RedisSynchronizers(options, executor, channels, clientId, lockOps,
                ops -> RedisReplicaAckedLockOps.wrap(ops, executor, redisOptions));
        this.inspector = new RedisInspector(options.namespace(), conns.commands, errors,
                options.operationTimeout());
        this.ackedLockOps = RedisReplicaAckedLockOps.wrap(lockOps, executor, redisOptions);
        this.ackedFairOps = RedisReplicaAckedLockOps.wrap(synchronizers.fairOps(), executor, redisOptions);
        this.ackedReadOps = RedisReplicaAckedLockOps.wrap(synchronizers.readOps(), executor, redisOptions);
        this.ackedWriteOps = RedisReplicaAckedLockOps.wrap(synchronizers.writeOps(), executor, redisOptions);
        this.fencedStoreOps = new RedisFencedStoreOps(options.namespace(), executor, redisOptions);
    }

    /**
     * Stops the reconnect listener, closes the two connections, and shuts the Lettuce client down if it was made
     * here (the client stops its scheduler afterwards). Called once.
     */
    void close() {
        redisClient.removeListener(channels);
        connections.close();
        if (ownsClient) {
            RedisLockClientFactory.shutdown(redisClient);
        }
    }
}
