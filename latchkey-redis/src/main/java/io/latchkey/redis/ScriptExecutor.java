package io.latchkey.redis;

import io.latchkey.core.MaintenanceScheduler;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Runs the lock scripts: EVALSHA with the precomputed digest, and on NOSCRIPT (a server that restarted, failed
 * over or ran SCRIPT FLUSH) one EVAL with the source, which also puts it back into the server's script cache. So
 * the usual cost is one round trip, and a cache miss costs one more, once.
 *
 * <p>Command timeouts come from Lettuce when its connection has them; for an application's client without
 * command timeouts, this class bounds each command with the client's scheduler instead.
 *
 * <p>The commands are a standalone connection's or a Redis Cluster connection's (their common Lettuce interface);
 * on a cluster Lettuce routes each EVALSHA by its first key and follows MOVED/ASK redirections, and every script's
 * keys share one hash slot. With {@code sharded} set the scripts' wake-ups go out by {@code SPUBLISH} (see
 * {@link LockScripts.Script#sharded()}). The lock's and the semaphore's acquires and releases go through
 * {@link #grouped}: calls ready while another is in flight share one script call ({@link ScriptGroups}).
 */
final class ScriptExecutor {

    private final RedisClusterAsyncCommands<String, String> commands;
    private final boolean cluster;
    private final boolean sharded;
    private final RedisErrors errors;
    private final MaintenanceScheduler scheduler;
    private final long ownTimeoutNanos;
    private final ScriptGroups groups;

    /**
     * @param ownTimeoutNanos the bound to enforce here, or 0 when the connection times commands out itself
     * @param cluster whether the commands go to a Redis Cluster (every script's keys must share one slot)
     * @param sharded whether scripts publish with {@code SPUBLISH} (a Redis Cluster of Redis 7 or later)
     */
    ScriptExecutor(RedisClusterAsyncCommands<String, String> commands, RedisErrors errors,
                   MaintenanceScheduler scheduler, long ownTimeoutNanos, boolean cluster, boolean sharded) {
        this.commands = commands;
        this.cluster = cluster;
        this.sharded = sharded;
        this.errors = errors;
        this.scheduler = scheduler;
        this.ownTimeoutNanos = ownTimeoutNanos;
        this.groups = new ScriptGroups(this, cluster);
    }

    RedisErrors errors() {
        return errors;
    }

    /** The client's scheduler (its one timer thread: tasks never block). */
    MaintenanceScheduler scheduler() {
        return scheduler;
    }

    RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    /** Whether the commands go to a Redis Cluster. */
    boolean cluster() {
        return cluster;
    }

    /** Whether wake-ups use sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}): Redis Cluster 7 or later. */
    boolean sharded() {
        return sharded;
    }

    <T> CompletableFuture<T> run(LockScripts.Script plain, ScriptOutputType type, String[] keys, String... args) {
        LockScripts.Script script = sharded ? plain.sharded() : plain;
        CompletableFuture<T> result = new CompletableFuture<>();
        send(() -> commands.evalsha(script.sha, type, keys, args), result, script.name, error -> {
            if (!RedisErrors.isNoScript(error)) {
                return false;
            }
            send(() -> commands.eval(script.source, type, keys, args), result, script.name, null);
            return true;
        });
        return result;
    }

    /** Runs a member of {@link ScriptGroups#GROUP}: alone, or with this client's calls ready at once (of its slot). */
    CompletableFuture<Long> grouped(LockScripts.Script script, String[] keys, String... args) {
        return groups.run(script, keys, args);
    }

    /** Sends a plain command, bounded and with errors mapped like a script's. */
    <T> CompletableFuture<T> call(Supplier<RedisFuture<T>> send, String operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        send(send, result, operation, null);
        return result;
    }

    /** {@return whether {@code key} exists} */
    CompletableFuture<Boolean> exists(String key) {
        return call(() -> commands.exists(key), "EXISTS").thenApply(n -> n > 0);
    }

    /**
     * Sends one command whose outcome completes {@code result}, unless {@code retried} (may be {@code null}) takes an
     * error over. A closed connection throws rather than failing the future: it is reported the same way.
     */
    private <T> void send(Supplier<RedisFuture<T>> send, CompletableFuture<T> result, String operation,
                          Predicate<Throwable> retried) {
        RedisFuture<T> command;
        try {
            command = send.get();
        } catch (RuntimeException e) {
            result.completeExceptionally(errors.map(e, operation));
            return;
        }
        bound(command, result, operation);
        command.whenComplete((v, e) -> {
            if (e == null) {
                result.complete(v);
            } else if (retried == null || !retried.test(e)) {
                result.completeExceptionally(errors.map(e, operation));
            }
        });
    }

    private void bound(RedisFuture<?> command, CompletableFuture<?> result, String operation) {
        if (ownTimeoutNanos <= 0 || command.isDone()) {
            return;
        }
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> {
                if (!result.isDone()) {
                    result.completeExceptionally(errors.map(new TimeoutException(operation + " timed out"),
                            operation));
                    command.cancel(false);
                }
            }, ownTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return; // the client is closing: closing its connection fails the command
        }
        command.whenComplete((v, e) -> timer.cancel(false));
    }
}
