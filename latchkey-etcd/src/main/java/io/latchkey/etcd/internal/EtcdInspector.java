package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Lists what one client's namespace holds for {@code latchkey inspect}, in two rounds: one range read under
 * {@code latchkey/[<namespace>/]}, then the remaining TTL of each distinct lease (pipelined). Rows:
 * <ul>
 *   <li>lock ({@code locks/}, the plain and fair lock's one queue): the key with the lowest create revision;
 *   {@code owner} from its value; {@code holdCount} 1 (reentrancy is the holder client's); {@code waiters} the other
 *   keys; {@code fencingToken} this client's grant's for its own holds, else {@link EtcdKeys#token}.</li>
 *   <li>read-write lock ({@code rw/}): a {@code write-lock} row when the oldest key is a writer's, else one
 *   {@code read-lock} row per reader older than the first queued writer (and per downgraded reader).</li>
 *   <li>permit-expirable semaphore ({@code permits/}): one {@code permit} row per held permit (token: its key's create
 *   revision), or one unowned {@code permit-semaphore} row when none is held; the detail gives the available.</li>
 *   <li>semaphore and latch: one unowned row, the free permits or the count as detail (take records are no rows).</li>
 * </ul>
 * {@code remainingLease} is the key's etcd lease's remaining TTL in whole seconds: the shared lease's for watchdog
 * holds and permits, the hold's own lease's for a fixed one.
 */
public final class EtcdInspector {

    private final EtcdSession session;
    private final String base;
    private final List<EtcdLockOps> ops;

    /** @param ops this client's lock operations, whose holds give exact tokens */
    public EtcdInspector(EtcdSession session, String base, List<EtcdLockOps> ops) {
        this.session = session;
        this.base = base;
        this.ops = List.copyOf(ops);
    }

    private record Entry(String rest, KeyValue kv) { // rest: the key below the name
        boolean is(String marker) {
            return rest.startsWith(marker);
        }
    }

    /** A row before its lease's TTL is known ({@code lease} 0: none). */
    private record Row(LockInfo info, long lease) {
    }

    public List<LockInfo> list(String pattern) {
        List<KeyValue> kvs = await(session.bounded(session.client().getKVClient().get(bytes(base),
                GetOption.builder().isPrefix(true).build()), "list " + base)).getKvs();
        // folder -> name -> keys, names sorted
        Map<String, Map<String, List<Entry>>> byFolder = new TreeMap<>();
        for (KeyValue kv : kvs) {
            String key = EtcdKeys.string(kv.getKey()).substring(base.length());
            int slash = key.indexOf('/');
            String folder = slash <= 0 ? "" : key.substring(0, slash);
            String tail = key.substring(slash + 1);
            int end = tail.indexOf('/');
            String escaped = end < 0 ? tail : tail.substring(0, end);
            if (slash <= 0 || escaped.isEmpty() || (end < 0 && Set.of("locks", "rw", "permits").contains(folder))) {
                continue; // a queue's or a permit semaphore's keys are below the name; another namespace's are not ours
            }
            String name = EtcdKeys.unescape(escaped);
            if (LockInspector.matches(pattern, name)) {
                byFolder.computeIfAbsent(folder, f -> new TreeMap<>()).computeIfAbsent(name, n -> new ArrayList<>())
                        .add(new Entry(end < 0 ? "" : tail.substring(end + 1), kv));
            }
        }
        List<Row> rows = new ArrayList<>();
        byFolder.getOrDefault("locks", Map.of()).forEach((name, keys) -> locks(name, keys, rows));
        byFolder.getOrDefault("rw", Map.of()).forEach((name, keys) -> readWrite(name, keys, rows));
        byFolder.getOrDefault("permits", Map.of()).forEach((name, keys) -> permits(name, keys, rows));
        byFolder.getOrDefault("semaphores", Map.of()).forEach((name, keys) -> rows.add(unowned(name, "semaphore",
                EtcdCounter.parse(keys.get(0).kv()) + " permits available")));
        byFolder.getOrDefault("latches", Map.of()).forEach((name, keys) -> rows.add(unowned(name, "latch",
                "count " + EtcdCounter.parse(keys.get(0).kv()))));
        Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> ttls = new HashMap<>();
        rows.stream().filter(r -> r.lease() != 0).forEach(r -> ttls.computeIfAbsent(r.lease(), id -> session.bounded(
                session.client().getLeaseClient().timeToLive(id, LeaseOption.DEFAULT), "read lease "
                        + Long.toHexString(id))));
        List<LockInfo> result = new ArrayList<>(rows.size());
        for (Row r : rows) {
            LockInfo info = r.info();
            LeaseTimeToLiveResponse ttl = r.lease() == 0 ? null : await(ttls.get(r.lease()));
            if (ttl != null && ttl.getTTL() >= 0) {
                info = new LockInfo(info.name(), info.owner(), info.holdCount(), info.fencingToken(),
                        Optional.of(Duration.ofSeconds(ttl.getTTL())), info.waiters(), info.kind(),
                        info.detail(), info.clientName(), info.heldSince());
            }
            result.add(info);
        }
        return result;
    }

    private void locks(String name, List<Entry> keys, List<Row> into) {
        KeyValue holder = keys.stream().map(Entry::kv).min(Comparator.comparingLong(KeyValue::getCreateRevision))
                .orElseThrow();
        String key = EtcdKeys.string(holder.getKey());
        long token = ops.stream().mapToLong(o -> o.heldToken(key)).max().orElse(-1);
        into.add(new Row(new LockInfo(name, EtcdKeys.owner(holder), 1,
                OptionalLong.of(token >= 0 ? token : EtcdKeys.token(holder)), Optional.empty(),
                OptionalInt.of(keys.size() - 1)).withHolder(EtcdKeys.clientName(holder), EtcdKeys.since(holder)),
                holder.getLease()));
    }

    private void readWrite(String name, List<Entry> keys, List<Row> into) {
        List<Entry> queue = new ArrayList<>(keys);
        queue.sort(Comparator.comparingLong(e -> e.kv().getCreateRevision()));
        List<Entry> holders = new ArrayList<>();
        for (Entry e : queue) {
            if (e.is("write-")) {
                if (holders.isEmpty()) {
                    holders.add(e); // the oldest key is a writer's: it holds alone
                }
                break;
            }
            holders.add(e);
        }
        queue.stream().filter(e -> e.is("down-") && !holders.contains(e)).forEach(holders::add);
        OptionalInt waiters = OptionalInt.of(queue.size() - holders.size());
        for (Entry e : holders) {
            into.add(new Row(new LockInfo(name, EtcdKeys.owner(e.kv()), 1, OptionalLong.of(EtcdKeys.token(e.kv())),
                    Optional.empty(), waiters, e.is("write-") ? "write-lock" : "read-lock", "")
                    .withHolder(EtcdKeys.clientName(e.kv()), EtcdKeys.since(e.kv())), e.kv().getLease()));
        }
    }

    private void permits(String name, List<Entry> keys, List<Row> into) {
        long total = keys.stream().filter(e -> e.rest().equals("total")).mapToLong(e -> EtcdCounter.parse(e.kv()))
                .findAny().orElse(0);
        List<Entry> held = keys.stream().filter(e -> e.is("held/")).toList();
        String detail = String.format("%d of %d permits available", Math.max(0, total - held.size()), total);
        for (Entry e : held) {
            into.add(new Row(new LockInfo(name, EtcdKeys.unescape(e.rest().substring("held/".length())), 1,
                    OptionalLong.of(e.kv().getCreateRevision()), Optional.empty(), OptionalInt.empty(), "permit",
                    detail), e.kv().getLease()));
        }
        if (held.isEmpty()) {
            into.add(unowned(name, "permit-semaphore", detail));
        }
    }

    private static Row unowned(String name, String kind, String detail) {
        return new Row(new LockInfo(name, LockInfo.NO_OWNER, 1, OptionalLong.empty(), Optional.empty(),
                OptionalInt.empty(), kind, detail), 0);
    }

    private <T> T await(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            throw session.unavailable("list locks", e.getCause() == null ? e : e.getCause());
        }
    }
}
