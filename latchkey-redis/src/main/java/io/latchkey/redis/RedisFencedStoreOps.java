package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.FencedWrite;
import io.latchkey.core.RemoteFencedStoreOps;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ByteArrayOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis fenced store: each store key is a plain Redis string (raw bytes, no TTL) named
 * {@code <store prefix><key>}, where the store prefix is in the lock key's Cluster hash slot (the lock key's own hash
 * tag if it has one, otherwise the lock key as the tag: {@code <namespace>{<lock key>}:latchkey:store:}) so one script
 * can touch the lock and the data on a Cluster. The data is never a hash, so {@code latchkey inspect} (which lists
 * hashes) does not take it for a lock, and {@code unlock} (which deletes the lock hash) leaves it alone.
 *
 * <p>One script, {@link #WRITE}, reads the lock hash's {@code latchkey:token} field and writes only if it equals the
 * writer's token: Redis runs a script atomically, and an expired lock hash reads as missing inside it, so the check
 * and the write cannot be separated. With {@code replicaAcks} the write is followed by {@code WAIT}, as grants are.
 */
final class RedisFencedStoreOps implements RemoteFencedStoreOps {

    static final String STORE_SUFFIX = ":latchkey:store";

    /**
     * KEYS: lock, data. ARGV: token, kind (p put, c compare-and-set, d delete), value, expected present (1/0),
     * expected. Returns -1 if the hold with that token is gone (nothing written), 1 if applied, 0 if unchanged.
     */
    static final LockScripts.Script WRITE = new LockScripts.Script("fencedWrite",
            "if redis.call('hget', KEYS[1], 'latchkey:token') ~= ARGV[1] then return -1; end; "
            + "local kind = ARGV[2]; "
            + "if kind == 'd' then return redis.call('del', KEYS[2]); end; "
            + "if kind == 'c' then "
            + "local cur = redis.call('get', KEYS[2]); "
            + "if ARGV[4] == '0' then if cur then return 0; end; "
            + "elseif cur ~= ARGV[5] then return 0; end; "
            + "end; "
            + "redis.call('set', KEYS[2], ARGV[3]); "
            + "return 1;");

    private static final byte[] NONE = new byte[0];

    private final String namespace;
    private final ScriptExecutor executor;
    private final int replicaAcks;
    private final long replicaAckTimeoutMillis;

    RedisFencedStoreOps(String namespace, ScriptExecutor executor, RedisOptions options) {
        this.namespace = namespace;
        this.executor = executor;
        this.replicaAcks = options.replicaAcks();
        this.replicaAckTimeoutMillis = options.replicaAckTimeout().toMillis();
    }

    /** The prefix of the store keys of lock {@code lockKey}: in its hash slot, apart from the lock's own keys. */
    static String storePrefix(String namespace, String lockKey) {
        return LockKeys.inSlot(namespace, lockKey, STORE_SUFFIX) + ":";
    }

    private String dataKey(String lockName, String key) {
        return storePrefix(namespace, namespace + lockName) + key;
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        String dataKey = dataKey(lockName, key);
        return executor.<byte[]>call(() -> executor.commands().dispatch(CommandType.GET,
                        new ByteArrayOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).addKey(dataKey)),
                "fenced store GET").thenApply(Optional::ofNullable);
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        String lockKey = namespace + lockName;
        String dataKey = dataKey(lockName, write.key());
        String kind = switch (write.kind()) {
            case PUT -> "p";
            case COMPARE_AND_SET -> "c";
            case DELETE -> "d";
        };
        byte[] value = write.value() == null ? NONE : write.value();
        byte[] expected = write.expected() == null ? NONE : write.expected();
        String expectedPresent = write.expected() == null ? "0" : "1";
        CompletableFuture<Long> reply = send(true, lockKey, dataKey, token, kind, value, expectedPresent, expected)
                .exceptionallyCompose(e -> RedisErrors.anyCause(e, RedisErrors::isNoScript) // the executor maps errors
                        ? send(false, lockKey, dataKey, token, kind, value, expectedPresent, expected)
                        : CompletableFuture.failedFuture(e));
        return reply.thenCompose(r -> {
            FencedWrite.Outcome outcome = r < 0 ? FencedWrite.Outcome.STALE
                    : r > 0 ? FencedWrite.Outcome.APPLIED : FencedWrite.Outcome.UNCHANGED;
            return outcome == FencedWrite.Outcome.APPLIED ? acknowledged(lockName, write, outcome)
                    : CompletableFuture.completedFuture(outcome);
        });
    }

    private CompletableFuture<Long> send(boolean bySha, String lockKey, String dataKey, long token, String kind,
                                         byte[] value, String expectedPresent, byte[] expected) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8)
                .add(bySha ? WRITE.sha : WRITE.source).add(2).addKey(lockKey).addKey(dataKey)
                .add(Long.toString(token)).add(kind).add(value).add(expectedPresent).add(expected);
        return executor.<Long>call(() -> executor.commands().dispatch(bySha ? CommandType.EVALSHA : CommandType.EVAL,
                new IntegerOutput<>(StringCodec.UTF8), args), "fenced store write");
    }

    /** With {@code replicaAcks}: waits for the replicas, as grants do; too few is an unavailable server. */
    private CompletableFuture<FencedWrite.Outcome> acknowledged(String lockName, FencedWrite write,
                                                               FencedWrite.Outcome outcome) {
        if (replicaAcks == 0) {
            return CompletableFuture.completedFuture(outcome);
        }
        return executor.<Long>call(() -> executor.commands().waitForReplication(replicaAcks,
                replicaAckTimeoutMillis), "WAIT").thenApply(acked -> {
                    if (acked == null || acked < replicaAcks) {
                        throw new LockUnavailableException(String.format(
                                "redis at %s: the %s of key '%s' in the fenced store of lock '%s' was applied on the "
                                        + "master but only %d of %d replicas acknowledged it within %d ms; a "
                                        + "failover may lose it", executor.errors().address(), write.kind(),
                                write.key(), lockName, acked, replicaAcks, replicaAckTimeoutMillis));
                    }
                    return outcome;
                });
    }
}
