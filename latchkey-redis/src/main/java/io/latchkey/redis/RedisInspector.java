package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Lists held locks for {@code latchkey inspect}: SCAN (MATCH on the namespace and pattern, TYPE hash) in pages
 * of 1,000, then per page one pipelined HGETALL + PTTL per key. Hashes whose fields are not
 * {@code owner -> positive count} (besides a Latchkey hold's own {@code latchkey:} fields) are not locks and are
 * skipped. The fencing token shown is the hold's own (none for a Redisson holder, which has no token).
 *
 * <p>On a Redis Cluster the commands are Lettuce's cluster commands: its SCAN walks every master in turn (one
 * cursor across the nodes) and the per-key reads are routed by slot, so the listing covers the whole cluster.
 * The other synchronizers (fair and read-write locks, semaphores, latches) are listed by {@link SynchronizerInspection}
 * with their {@link LockInfo#kind()}.
 */
final class RedisInspector {

    private final String namespace;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisErrors errors;
    private final Duration timeout;
    private final SynchronizerInspection synchronizers;

    RedisInspector(String namespace, RedisClusterAsyncCommands<String, String> commands, RedisErrors errors,
                       Duration timeout) {
        this.namespace = namespace;
        this.commands = commands;
        this.errors = errors;
        this.timeout = timeout;
        this.synchronizers = new SynchronizerInspection(namespace, commands, this::await);
    }

    List<LockInfo> list(String pattern) {
        String match = escape(namespace) + toRedisGlob(pattern == null ? "*" : pattern);
        KeyScanArgs args = new KeyScanArgs().match(match).limit(1_000).type("hash");
        List<LockInfo> result = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = await(commands.scan(cursor, args).toCompletableFuture(), "SCAN");
            inspect(page.getKeys(), pattern, result);
            cursor = page;
        } while (!cursor.isFinished());
        result.addAll(synchronizers.list(pattern));
        result.sort(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::kind)
                .thenComparing(LockInfo::owner));
        return result;
    }

    private void inspect(List<String> keys, String pattern, List<LockInfo> into) {
        List<CompletableFuture<Map<String, String>>> fields = new ArrayList<>(keys.size());
        List<CompletableFuture<Long>> ttls = new ArrayList<>(keys.size());
        List<String> names = new ArrayList<>(keys.size());
        for (String key : keys) {
            String name = key.substring(namespace.length());
            if (!LockInspector.matches(pattern, name) || synchronizers.recognize(key) != null) {
                // a synchronizer's own hash (a semaphore's take records, for one) is listed with its synchronizer
                continue;
            }
            names.add(name);
            fields.add(commands.hgetall(key).toCompletableFuture());
            ttls.add(commands.pttl(key).toCompletableFuture());
        }
        for (int i = 0; i < names.size(); i++) {
            Map<String, String> holders = await(fields.get(i), "HGETALL");
            long pttl = await(ttls.get(i), "PTTL");
            String token = holders.get(LockKeys.TOKEN_FIELD);
            String client = holders.getOrDefault("latchkey:client", LockHolder.UNKNOWN_CLIENT);
            OptionalLong since = parseToken(holders.get("latchkey:since"));
            for (Map.Entry<String, String> holder : holders.entrySet()) {
                // the hold's own fields (token, client, since, …) all start with "latchkey:"
                int count = holder.getKey().startsWith("latchkey:") ? -1 : parseCount(holder.getValue());
                if (count <= 0) {
                    continue;
                }
                into.add(new LockInfo(names.get(i), holder.getKey(), count,
                        parseToken(token),
                        pttl > 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), OptionalInt.empty())
                        .withHolder(client, since.isPresent()
                                ? Optional.of(Instant.ofEpochMilli(since.getAsLong())) : Optional.empty()));
            }
        }
    }

    private static OptionalLong parseToken(String value) {
        try {
            return value == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(value));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static int parseCount(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private <T> T await(CompletableFuture<T> future, String operation) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw errors.map(e, "inspect (" + operation + ")");
        } catch (ExecutionException | TimeoutException e) {
            future.cancel(false);
            throw errors.map(e, "inspect (" + operation + ")");
        }
    }

    /** Escapes Redis glob metacharacters so that {@code text} matches itself. */
    static String escape(String text) {
        return escape(text, "*?[]\\");
    }

    /** {@link LockInspector}'s glob ({@code *}, {@code ?}, the rest literal) as a Redis MATCH pattern. */
    static String toRedisGlob(String pattern) {
        return escape(pattern, "[]\\");
    }

    private static String escape(String text, String special) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (char c : text.toCharArray()) {
            if (special.indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }
}
