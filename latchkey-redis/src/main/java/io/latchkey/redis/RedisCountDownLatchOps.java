package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the Redis count-down latch ({@link RemoteCountOps}): the count is one integer key
 * {@code <namespace>{<namespace + name>}:latchkey:latch:count} (absent: open), changed only by the scripts of
 * {@link CountDownLatchScripts}. The count-down that reaches zero deletes the key and publishes on
 * {@code latchkey_latch__channel:<base>}: one message wakes every waiter of every client.
 */
final class RedisCountDownLatchOps extends RedisCountOps {

    RedisCountDownLatchOps(String namespace, ScriptExecutor executor, PubSubChannels channels,
                           long recheckMillis) {
        super("latch", namespace, executor, channels, recheckMillis);
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return executor.<Long>run(CountDownLatchScripts.TRY_SET, ScriptOutputType.INTEGER,
                new String[] {base(name) + ":count"}, Long.toString(count)).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        String base = base(name);
        return executor.<Long>run(CountDownLatchScripts.COUNT_DOWN, ScriptOutputType.INTEGER,
                new String[] {base + ":count", channel(base)}).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return executor.<String>call(() -> executor.commands().get(base(name) + ":count"), "GET")
                .thenApply(v -> v == null ? 0L : Math.max(0L, Long.parseLong(v)));
    }
}
