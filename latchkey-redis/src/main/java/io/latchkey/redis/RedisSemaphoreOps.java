package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the Redis semaphore ({@link RemoteCountOps}): the available permits are one integer key
 * {@code <namespace>{<namespace + name>}:latchkey:semaphore:permits} (absent until {@code trySetPermits} or
 * {@code addPermits} sets it; no TTL, as permits are not owned), changed only by the scripts of
 * {@link SemaphoreScripts}, each one check-and-change step. Releases, added permits and a first
 * {@code trySetPermits} publish on {@code latchkey_semaphore__channel:<base>}, which wakes the engine's waiters of
 * every client. A waiter puts nothing on the server: when permits come back, whichever client's attempt arrives first
 * and fits takes them (like a non-fair {@link java.util.concurrent.Semaphore}).
 */
final class RedisSemaphoreOps extends RedisCountOps {

    RedisSemaphoreOps(String namespace, ScriptExecutor executor, PubSubChannels channels,
                      long recheckMillis) {
        super("semaphore", namespace, executor, channels, recheckMillis);
    }

    private String permitsKey(String name) {
        return base(name) + ":permits";
    }

    private String[] permitsAndChannel(String name) {
        String base = base(name);
        return new String[] {base + ":permits", channel(base)};
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return executor.<String>call(() -> executor.commands().get(permitsKey(name)), "GET")
                .thenApply(v -> v == null ? 0 : saturate(Long.parseLong(v)));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return executor.<Long>run(SemaphoreScripts.TRY_SET, ScriptOutputType.INTEGER, permitsAndChannel(name),
                Integer.toString(permits)).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return executor.<Long>run(SemaphoreScripts.ADD, ScriptOutputType.INTEGER, permitsAndChannel(name),
                Integer.toString(delta)).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return executor.<Long>run(SemaphoreScripts.ACQUIRE, ScriptOutputType.INTEGER, new String[] {permitsKey(name)},
                Integer.toString(permits), Long.toString(recheckMillis())).thenApply(r -> r > 0);
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return addPermits(name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return executor.<Long>run(SemaphoreScripts.DRAIN, ScriptOutputType.INTEGER, new String[] {permitsKey(name)})
                .thenApply(RedisCountOps::saturate);
    }

}
