package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What the fair lock and the two halves of the read-write lock share: per-name keys of type {@code K} in a
 * {@link KeyCache}, holds named {@code owner|token} and renewed in batches, waiting places (a fair lock's queue entry,
 * a writer's intent) that the server forgets after the heartbeat and whose withdrawal is retried
 * ({@link Withdrawals}), and holds whose value records the client's name and the hold's start.
 */
abstract class RedisSyncLockOps<K> implements RemoteLockOps {

    /** Holds per renewal script: bounds the script's run time (it blocks the server while it runs). */
    static final int RENEW_BATCH = 512;

    final ScriptExecutor executor;
    final PubSubChannels channels;
    final long heartbeatMillis;
    final KeyCache<K> keyCache;
    final Withdrawals withdrawals;
    /** The client's name, recorded with each hold. */
    final String clientName;

    RedisSyncLockOps(ScriptExecutor executor, PubSubChannels channels, long heartbeatMillis, KeyCache<K> keyCache,
                     Withdrawals withdrawals, String clientName) {
        this.executor = executor;
        this.channels = channels;
        this.heartbeatMillis = heartbeatMillis;
        this.keyCache = keyCache;
        this.withdrawals = withdrawals;
        this.clientName = clientName;
    }

    /** The keys of a name; a grant keeps none of its own, its release finds them here. */
    K keys(String name) {
        return keyCache.get(name);
    }

    static String member(Grant grant) {
        return grant.ownerId() + "|" + grant.fencingToken();
    }

    long heartbeatMillis() {
        return heartbeatMillis;
    }

    /** A waiter asks again at least this often, so that the server keeps its place: a third of the heartbeat. */
    long recheckMillis() {
        return Math.max(1, heartbeatMillis / 3);
    }

    /** The re-check of a refused attempt: the script's hint {@code 1 - reply}, at most {@link #recheckMillis()}. */
    long recheckNanos(long reply) {
        return TimeUnit.MILLISECONDS.toNanos(Math.min(1 - reply, recheckMillis()));
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    /** The key of a hold that {@link #renewScript} extends. */
    abstract String renewKey(K keys);

    /** KEYS: one hold per key. ARGV: {@code owner|token} and lease millis per hold. 1 (renewed) or 0 per hold. */
    abstract Script renewScript();

    /**
     * The keys are cached or built without filling the cache: a round over more held names than the cache keeps
     * would clear it again and again.
     */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return renew(executor, renewScript(), grants, g -> renewKey(keyCache.peekOrBuild(g.name())),
                g -> List.of(member(g)));
    }

    /**
     * Renews {@code grants} by {@code script} (KEYS: one hold per key; ARGV: the hold's {@code fields} and lease millis
     * per key; 1 renewed or 0 lost per key): one script per {@value #RENEW_BATCH} holds (per hash slot on a cluster),
     * pipelined on the one connection, so together they cost one round trip.
     */
    static CompletableFuture<Set<Grant>> renew(ScriptExecutor executor, Script script, Collection<Grant> grants,
                                               Function<Grant, String> key, Function<Grant, List<String>> fields) {
        List<CompletableFuture<Set<Grant>>> batches = new ArrayList<>();
        for (List<Grant> batch : RenewBatches.split(grants, RENEW_BATCH, executor.cluster(), key)) {
            String[] keys = new String[batch.size()];
            List<String> args = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                keys[i] = key.apply(batch.get(i));
                args.addAll(fields.apply(batch.get(i)));
                args.add(Long.toString(batch.get(i).leaseMillis()));
            }
            batches.add(executor.<List<Object>>run(script, ScriptOutputType.MULTI, keys, args.toArray(new String[0]))
                    .thenApply(reply -> RenewBatches.lost(reply, batch)));
        }
        return CompletableFuture.allOf(batches.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            Set<Grant> lost = new HashSet<>();
            batches.forEach(b -> lost.addAll(b.join()));
            return lost;
        });
    }

    /**
     * Who holds the fair or write hold at {@code key} (one read-only script, {@link ReadWriteLockScripts#HOLD}).
     * Redis does not count waiters.
     */
    static CompletableFuture<LockHolder> holder(ScriptExecutor executor, String key) {
        return executor.<List<Object>>run(ReadWriteLockScripts.HOLD, ScriptOutputType.MULTI, new String[] {key})
                .thenApply(r -> r == null || r.size() < 2 || !(r.get(0) instanceof String || r.get(0) instanceof byte[])
                        ? null : hold(text(r.get(0)), leaseLeft(r.get(1))));
    }

    /**
     * A hold's value: its first line {@code owner|token|attempt id} (or {@code owner|token}, a read hold's member or
     * a hold of an earlier version, which names no client), then a line with the client's name and one with its
     * start (epoch ms, server time).
     */
    static LockHolder hold(String value, Optional<Duration> leaseLeft) {
        String[] lines = value.split("\n", 3);
        String[] first = lines[0].split("\\|", 3);
        String client = lines.length > 1 && !lines[1].isEmpty() ? lines[1] : LockHolder.UNKNOWN_CLIENT;
        return new LockHolder(first[0], client, epochMillis(lines.length > 2 ? lines[2] : null), leaseLeft,
                number(first.length > 1 ? first[1] : null), OptionalInt.empty());
    }

    /** A script's reply element as text ({@code ""} for none). */
    static String text(Object o) {
        return o instanceof byte[] ? new String((byte[]) o, StandardCharsets.UTF_8) : o == null ? "" : o.toString();
    }

    /** {@code text} as a number if it is one of at most 18 digits. */
    static OptionalLong number(String text) {
        return text != null && text.matches("[0-9]{1,18}") ? OptionalLong.of(Long.parseLong(text))
                : OptionalLong.empty();
    }

    static Optional<Instant> epochMillis(String text) {
        OptionalLong n = number(text);
        return n.isPresent() ? Optional.of(Instant.ofEpochMilli(n.getAsLong())) : Optional.empty();
    }

    /** A PTTL reply as the lease left: none for a key without expiry (-1) or no key (-2). */
    static Optional<Duration> leaseLeft(Object pttl) {
        return pttl instanceof Long && (Long) pttl >= 0 ? Optional.of(Duration.ofMillis((Long) pttl))
                : Optional.empty();
    }
}
