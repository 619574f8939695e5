package io.latchkey.redis;

import io.latchkey.LockHolder;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Lists held locks for {@code latchkey inspect}: SCAN (MATCH on the namespace and pattern, TYPE hash) in pages
 * of 1,000, then per page one pipelined HGETALL + PTTL per key. Hashes whose fields are not
 * {@code owner -> positive count} (besides a Latchkey hold's own {@code latchkey:} fields) are not locks and are
 * skipped. The fencing token shown is the hold's own (none for a Redisson holder, which has no token).
 *
 * <p>On a Redis Cluster the commands are Lettuce's cluster commands: its SCAN walks every master in turn (one
 * cursor across the nodes) and the per-key reads are routed by slot, so the listing covers the whole cluster.
 * The other synchronizers (fair and read-write locks, semaphores, latches) are listed with their
 * {@link LockInfo#kind()} ({@link #listSynchronizers}).
 */
final class RedisInspector {

    /** kind in the keys → the parts whose presence means there may be something to show. */
    private static final String[][] ANCHORS = {
            {"rw", "write", "readers"},
            {"fair", "owner", "queue"},
            {"semaphore", "permits", "takes"},
            {"latch", "count"},
            {"permits", "leases", "total"},
    };

    private final String namespace;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisErrors errors;
    private final Duration timeout;

    RedisInspector(String namespace, RedisClusterAsyncCommands<String, String> commands, RedisErrors errors,
                       Duration timeout) {
        this.namespace = namespace;
        this.commands = commands;
        this.errors = errors;
        this.timeout = timeout;
    }

    List<LockInfo> list(String pattern) {
        String match = escape(namespace) + toRedisGlob(pattern == null ? "*" : pattern);
        KeyScanArgs args = new KeyScanArgs().match(match).limit(1_000).type("hash");
        List<LockInfo> result = new ArrayList<>();
        scan(args, keys -> inspect(keys, pattern, result));
        result.addAll(listSynchronizers(pattern));
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
            if (!LockInspector.matches(pattern, name) || recognize(key) != null) {
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
            String client = holders.getOrDefault("latchkey:client", LockHolder.UNKNOWN_CLIENT);
            for (Map.Entry<String, String> holder : holders.entrySet()) {
                // the hold's own fields (token, client, since, …) all start with "latchkey:"
                long count = holder.getKey().startsWith("latchkey:") ? 0 : parse(holder.getValue());
                if (count > 0 && count <= Integer.MAX_VALUE) {
                    into.add(new LockInfo(names.get(i), holder.getKey(), (int) count,
                            RedisSyncLockOps.number(holders.get(LockKeys.TOKEN_FIELD)),
                            pttl > 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), OptionalInt.empty())
                            .withHolder(client, RedisSyncLockOps.epochMillis(holders.get("latchkey:since"))));
                }
            }
        }
    }

    /** Runs a SCAN to its end, each page's keys to {@code page}. */
    private void scan(ScanArgs args, Consumer<List<String>> page) {
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> keys = await(commands.scan(cursor, args).toCompletableFuture(), "SCAN");
            page.accept(keys.getKeys());
            cursor = keys;
        } while (!cursor.isFinished());
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

    /** A synchronizer found by the scan: its kind in the keys, its name and its keys' common base. */
    record Found(String kind, String name, String base) {
    }

    /**
     * The synchronizers' rows: one SCAN of
     * the namespace's {@code …:latchkey:…} keys, each recognized by its kind and part and mapped back to the name only
     * if {@link SyncKeys#base} of that name gives the same key (so keys of other namespaces or of no synchronizer are
     * skipped), then per synchronizer a few pipelined reads and one {@code TIME} for the sorted sets' expiry scores:
     *
     * <ul>
     *   <li>read-write lock: a {@code write-lock} row for the writer, a {@code read-lock} row per live read hold; both
     *   with the waiting writers' intents as waiters;</li>
     *   <li>fair lock: a {@code fair-lock} row for the holder, the queue's length as waiters;</li>
     *   <li>permit-expirable semaphore: a {@code permit} row per live permit (the owner is the permit id), the
     *   semaphore's availability as detail;</li>
     *   <li>semaphore, count-down latch: one row without owner, the permits available or the count as detail.</li>
     * </ul>
     * Not atomic across reads: a hold may end between them (it is then left out, or shown with what was read).
     */
    List<LockInfo> listSynchronizers(String pattern) {
        boolean plainNamespace = namespace.indexOf('{') < 0 && namespace.indexOf('}') < 0;
        String match = (plainNamespace ? escape(namespace) : "") + "*:latchkey:*";
        ScanArgs args = ScanArgs.Builder.matches(match).limit(1_000);
        Set<Found> found = new LinkedHashSet<>();
        scan(args, keys -> keys.stream().map(this::recognize)
                .filter(f -> f != null && LockInspector.matches(pattern, f.name())).forEach(found::add));
        List<LockInfo> result = new ArrayList<>();
        if (found.isEmpty()) {
            return result;
        }
        List<String> time = await(commands.time().toCompletableFuture(), "TIME");
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        List<Runnable> reads = new ArrayList<>(found.size());
        for (Found f : found) {
            reads.add(read(f, now, result));
        }
        reads.forEach(Runnable::run); // every command is sent before the first answer is awaited
        return result;
    }

    /** The synchronizer {@code key} belongs to, or {@code null} if it is none of this namespace's. */
    Found recognize(String key) {
        for (String[] anchor : ANCHORS) {
            String kind = anchor[0];
            for (int i = 1; i < anchor.length; i++) {
                String suffix = ":" + anchor[i];
                if (key.endsWith(suffix)) {
                    String base = key.substring(0, key.length() - suffix.length());
                    String name = nameOf(base, kind);
                    if (name != null) {
                        return new Found(kind, name, base);
                    }
                }
            }
        }
        return null;
    }

    /** Inverts {@link SyncKeys#base}: each of its three forms gives one candidate, kept only if it maps back. */
    private String nameOf(String base, String kind) {
        String marker = ":latchkey:" + kind;
        List<String> keys = new ArrayList<>(3);
        if (base.endsWith(marker)) {
            String head = base.substring(0, base.length() - marker.length());
            if (head.endsWith("}")) {
                int open = head.startsWith(namespace + "{") ? namespace.length() : head.startsWith("{") ? 0 : -1;
                if (open >= 0) {
                    keys.add(head.substring(open + 1, head.length() - 1)); // {namespace + name}
                }
            }
            // The name carries its own hash tag. Tried second: "{x}" maps to the same keys as "x" (the two names
            // share one synchronizer), and the plain name is the likelier one.
            keys.add(head);
        }
        int tagEnd = base.indexOf("}" + marker + ":");
        if (tagEnd > 0) {
            keys.add(base.substring(tagEnd + 1 + marker.length() + 1)); // {short tag}…:namespace + name
        }
        for (String key : keys) {
            if (key.startsWith(namespace) && key.length() > namespace.length()) {
                String name = key.substring(namespace.length());
                if (SyncKeys.base(namespace, name, kind).equals(base)) {
                    return name;
                }
            }
        }
        return null;
    }

    private Runnable read(Found f, long now, List<LockInfo> into) {
        String b = f.base();
        switch (f.kind()) {
            case "rw": {
                CompletableFuture<String> writer = commands.get(b + ":write").toCompletableFuture();
                CompletableFuture<Long> pttl = commands.pttl(b + ":write").toCompletableFuture();
                CompletableFuture<List<ScoredValue<String>>> readers =
                        commands.zrangeWithScores(b + ":readers", 0, -1).toCompletableFuture();
                CompletableFuture<Long> intents = commands.zcount(b + ":writers",
                        io.lettuce.core.Range.create((double) now + 1, Double.POSITIVE_INFINITY))
                        .toCompletableFuture();
                return () -> {
                    OptionalInt waiters = OptionalInt.of(Math.toIntExact(await(intents, "ZCOUNT")));
                    String w = await(writer, "GET");
                    long ttl = await(pttl, "PTTL");
                    if (w != null) {
                        into.add(held(f.name(), "write-lock", w, ttl, waiters));
                    }
                    for (ScoredValue<String> r : await(readers, "ZRANGE")) {
                        long left = (long) r.getScore() - now;
                        if (left > 0) {
                            into.add(held(f.name(), "read-lock", r.getValue(), left, waiters));
                        }
                    }
                };
            }
            case "fair": {
                CompletableFuture<String> owner = commands.get(b + ":owner").toCompletableFuture();
                CompletableFuture<Long> pttl = commands.pttl(b + ":owner").toCompletableFuture();
                CompletableFuture<Long> queue = commands.zcard(b + ":queue").toCompletableFuture();
                return () -> {
                    String o = await(owner, "GET");
                    long ttl = await(pttl, "PTTL");
                    int waiting = Math.toIntExact(await(queue, "ZCARD"));
                    if (o != null) {
                        into.add(held(f.name(), "fair-lock", o, ttl, OptionalInt.of(waiting)));
                    }
                };
            }
            case "permits": {
                CompletableFuture<String> total = commands.get(b + ":total").toCompletableFuture();
                CompletableFuture<List<ScoredValue<String>>> leases =
                        commands.zrangeWithScores(b + ":leases", 0, -1).toCompletableFuture();
                return () -> {
                    long permits = parse(await(total, "GET"));
                    List<ScoredValue<String>> live = new ArrayList<>();
                    for (ScoredValue<String> l : await(leases, "ZRANGE")) {
                        if ((long) l.getScore() - now > 0) {
                            live.add(l);
                        }
                    }
                    String detail = String.format("%d of %d permits available", permits - live.size(), permits);
                    for (ScoredValue<String> l : live) {
                        into.add(new LockInfo(f.name(), l.getValue(), 1, OptionalLong.empty(),
                                Optional.of(Duration.ofMillis((long) l.getScore() - now)), OptionalInt.empty(),
                                "permit", detail));
                    }
                    if (live.isEmpty() && permits != 0) {
                        into.add(unowned(f.name(), "permit-semaphore", detail));
                    }
                };
            }
            default: { // semaphore, latch
                boolean semaphore = f.kind().equals("semaphore");
                CompletableFuture<String> value = commands.get(b + (semaphore ? ":permits" : ":count"))
                        .toCompletableFuture();
                return () -> {
                    String v = await(value, "GET");
                    if (v != null) {
                        into.add(semaphore ? unowned(f.name(), "semaphore", parse(v) + " permits available")
                                : unowned(f.name(), "latch", "count " + parse(v)));
                    }
                };
            }
        }
    }

    /** A row of a hold: a read hold's member {@code owner|token} or a fair or write hold's value. */
    private static LockInfo held(String name, String kind, String value, long pttlMillis, OptionalInt waiters) {
        LockHolder h = RedisSyncLockOps.hold(value, Optional.empty());
        return new LockInfo(name, h.owner(), 1, h.fencingToken(),
                pttlMillis > 0 ? Optional.of(Duration.ofMillis(pttlMillis)) : Optional.empty(), waiters, kind, "")
                .withHolder(h.clientName(), h.heldSince());
    }

    private static LockInfo unowned(String name, String kind, String detail) {
        return new LockInfo(name, LockInfo.NO_OWNER, 1, OptionalLong.empty(), Optional.empty(), OptionalInt.empty(),
                kind, detail);
    }

    private static long parse(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
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
