package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the Redis count-down latch ({@link RemoteCountOps}): the count is one integer key
 * {@code <namespace>{<namespace + name>}:latchkey:latch:count} ({@code C}; absent: open), changed only by the scripts
 * below. The count-down that reaches zero deletes the key and publishes on {@code latchkey_latch__channel:<base>}:
 * one message wakes every waiter of every client.
 */
final class RedisCountDownLatchOps extends RedisCountOps {

    /** KEYS: C. ARGV: count. Arms an open latch: 1; an armed latch keeps its count: 0. */
    static final Script TRY_SET = new Script("latchTrySet",
            "if tonumber(redis.call('get', KEYS[1]) or '0') > 0 then return 0; end; "
            + "redis.call('set', KEYS[1], ARGV[1]); "
            + "return 1;");

    /** KEYS: C, channel. Decrements an armed latch; at zero deletes it and wakes every waiter. The new count. */
    static final Script COUNT_DOWN = new Script("latchCountDown",
            "if redis.call('exists', KEYS[1]) == 0 then return 0; end; "
            + "local v = redis.call('decr', KEYS[1]); "
            + "if v <= 0 then redis.call('del', KEYS[1]); redis.pcall('publish', KEYS[2], '0'); return 0; end; "
            + "return v;");

    RedisCountDownLatchOps(String namespace, ScriptExecutor executor, PubSubChannels channels,
                           long recheckMillis) {
        super("latch", namespace, executor, channels, recheckMillis);
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return executor.<Long>run(TRY_SET, ScriptOutputType.INTEGER,
                new String[] {base(name) + ":count"}, Long.toString(count)).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        String base = base(name);
        return executor.<Long>run(COUNT_DOWN, ScriptOutputType.INTEGER,
                new String[] {base + ":count", channel(base)}).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return executor.<String>call(() -> executor.commands().get(base(name) + ":count"), "GET")
                .thenApply(v -> v == null ? 0L : Math.max(0L, Long.parseLong(v)));
    }
}
