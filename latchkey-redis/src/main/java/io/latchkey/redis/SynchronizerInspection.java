package io.latchkey.redis;

import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The synchronizer half of {@code latchkey inspect} ({@link RedisInspector} lists the plain locks): one SCAN of
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
final class SynchronizerInspection {

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
    private final BiFunction<CompletableFuture<?>, String, Object> await;

    SynchronizerInspection(String namespace, RedisClusterAsyncCommands<String, String> commands,
                  BiFunction<CompletableFuture<?>, String, Object> await) {
        this.namespace = namespace;
        this.commands = commands;
        this.await = await;
    }

    @SuppressWarnings("unchecked")
    private <T> T get(CompletableFuture<T> future, String operation) {
        return (T) await.apply(future, operation);
    }

    /** A synchronizer found by the scan: its kind in the keys, its name and its keys' common base. */
    record Found(String kind, String name, String base) {
    }

    List<LockInfo> list(String pattern) {
        boolean plainNamespace = namespace.indexOf('{') < 0 && namespace.indexOf('}') < 0;
        String match = (plainNamespace ? RedisInspector.escape(namespace) : "") + "*:latchkey:*";
        ScanArgs args = ScanArgs.Builder.matches(match).limit(1_000);
        Set<Found> found = new LinkedHashSet<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = get(commands.scan(cursor, args).toCompletableFuture(), "SCAN");
            for (String key : page.getKeys()) {
                Found f = recognize(key);
                if (f != null && LockInspector.matches(pattern, f.name())) {
                    found.add(f);
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        List<LockInfo> result = new ArrayList<>();
        if (found.isEmpty()) {
            return result;
        }
        List<String> time = get(commands.time().toCompletableFuture(), "TIME");
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
                    OptionalInt waiters = OptionalInt.of(Math.toIntExact(get(intents, "ZCOUNT")));
                    String w = get(writer, "GET");
                    long ttl = get(pttl, "PTTL");
                    if (w != null) {
                        into.add(held(f.name(), "write-lock", w, ttl, waiters));
                    }
                    for (ScoredValue<String> r : get(readers, "ZRANGE")) {
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
                    String o = get(owner, "GET");
                    long ttl = get(pttl, "PTTL");
                    int waiting = Math.toIntExact(get(queue, "ZCARD"));
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
                    long permits = parse(get(total, "GET"));
                    List<ScoredValue<String>> live = new ArrayList<>();
                    for (ScoredValue<String> l : get(leases, "ZRANGE")) {
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
                    String v = get(value, "GET");
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
        io.latchkey.LockHolder h = RedisSyncLockOps.hold(value, Optional.empty());
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
}
