package io.latchkey.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the lock scripts: EVALSHA with the precomputed digest, and on NOSCRIPT (a server that restarted, failed
 * over or ran SCRIPT FLUSH) one EVAL with the source, which also puts it back into the server's script cache. So
 * the usual cost is one round trip, and a cache miss costs one more, once.
 *
 * <p>Command timeouts come from Lettuce when its connection has them; for an application's client without
 * command timeouts, this class bounds each command with the client's scheduler instead.
 */
final class ScriptExecutor {

    private final RedisAsyncCommands<String, String> commands;
    private final RedisErrors errors;
    private final ScheduledExecutorService scheduler;
    private final long ownTimeoutNanos;

    /**
     * @param ownTimeoutNanos the bound to enforce here, or 0 when the connection times commands out itself
     */
    ScriptExecutor(RedisAsyncCommands<String, String> commands, RedisErrors errors,
                   ScheduledExecutorService scheduler, long ownTimeoutNanos) {
        this.commands = commands;
        this.errors = errors;
        this.scheduler = scheduler;
        this.ownTimeoutNanos = ownTimeoutNanos;
    }

    RedisErrors errors() {
        return errors;
    }

    RedisAsyncCommands<String, String> commands() {
        return commands;
    }

    <T> CompletableFuture<T> run(LockScripts.Script script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> result = new CompletableFuture<>();
        RedisFuture<T> first;
        try {
            first = commands.evalsha(script.sha, type, keys, args);
        } catch (RuntimeException e) {
            // A closed connection throws rather than failing the future: report it the same way.
            result.completeExceptionally(errors.map(e, script.name));
            return result;
        }
        bound(first, result, script.name);
        first.whenComplete((value, error) -> {
            if (error == null) {
                result.complete(value);
            } else if (RedisErrors.isNoScript(error)) {
                RedisFuture<T> retry;
                try {
                    retry = commands.eval(script.source, type, keys, args);
                } catch (RuntimeException e) {
                    result.completeExceptionally(errors.map(e, script.name));
                    return;
                }
                bound(retry, result, script.name);
                retry.whenComplete((v, e) -> {
                    if (e == null) {
                        result.complete(v);
                    } else {
                        result.completeExceptionally(errors.map(e, script.name));
                    }
                });
            } else {
                result.completeExceptionally(errors.map(error, script.name));
            }
        });
        return result;
    }

    /** Sends a plain command, bounded and with errors mapped like a script's. */
    <T> CompletableFuture<T> call(java.util.function.Supplier<RedisFuture<T>> send, String operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        RedisFuture<T> command;
        try {
            command = send.get();
        } catch (RuntimeException e) {
            result.completeExceptionally(errors.map(e, operation));
            return result;
        }
        bound(command, result, operation);
        command.whenComplete((v, e) -> {
            if (e == null) {
                result.complete(v);
            } else {
                result.completeExceptionally(errors.map(e, operation));
            }
        });
        return result;
    }

    private void bound(RedisFuture<?> command, CompletableFuture<?> result, String operation) {
        if (ownTimeoutNanos <= 0 || command.isDone()) {
            return;
        }
        ScheduledFuture<?> timer = scheduler.schedule(() -> {
            if (!result.isDone()) {
                result.completeExceptionally(errors.map(new TimeoutException(operation + " timed out"), operation));
                command.cancel(false);
            }
        }, ownTimeoutNanos, TimeUnit.NANOSECONDS);
        command.whenComplete((v, e) -> timer.cancel(false));
    }
}
