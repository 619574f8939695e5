package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.latchkey.LockUnavailableException;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Lists the held locks of one client's namespace for {@code latchkey inspect}, in two rounds: one range read of every
 * owner key under {@code …/locks/}, then the remaining TTL of each holder's lease (pipelined).
 *
 * <p>Fields, as etcd knows them: the holder of a name is its key with the lowest create revision; {@code owner} is
 * the owner id in its value ({@code <clientId>:<thread or lease id>}); {@code holdCount} is 1 (reentrant holds are
 * counted by the holder's client); {@code waiters} is the number of other keys under the name, every one of them
 * queued; {@code remainingLease} is the remaining TTL of the holder key's etcd lease (whole seconds, as etcd keeps
 * them: the client's shared lease for watchdog holds, renewed every third of the watchdog timeout, or the hold's own
 * lease for a fixed one). {@code fencingToken} is this client's grant's token for its own holds, else the token as
 * {@link EtcdKeys#token} reads it from the key.
 */
public final class EtcdInspector {

    private final EtcdSession session;
    private final String locksRoot;
    private final List<EtcdLockOps> ops;

    /**
     * @param locksRoot the prefix (ending in {@code /}) below which every lock's own prefix lives
     * @param ops this client's lock operations, whose holds give exact tokens
     */
    public EtcdInspector(EtcdSession session, String locksRoot, List<EtcdLockOps> ops) {
        this.session = session;
        this.locksRoot = locksRoot;
        this.ops = List.copyOf(ops);
    }

    public List<LockInfo> list(String pattern) {
        List<KeyValue> kvs = await(session.bounded(session.client().getKVClient().get(bytes(locksRoot),
                GetOption.builder().isPrefix(true).build()), "list " + locksRoot)).getKvs();
        Map<String, List<KeyValue>> byName = new TreeMap<>();
        for (KeyValue kv : kvs) {
            String rest = EtcdKeys.string(kv.getKey()).substring(locksRoot.length());
            int slash = rest.indexOf('/');
            if (slash <= 0) {
                continue;
            }
            String name = EtcdKeys.unescape(rest.substring(0, slash));
            if (LockInspector.matches(pattern, name)) {
                byName.computeIfAbsent(name, n -> new ArrayList<>()).add(kv);
            }
        }
        List<String> names = new ArrayList<>();
        List<KeyValue> holders = new ArrayList<>();
        List<CompletableFuture<LeaseTimeToLiveResponse>> ttls = new ArrayList<>();
        for (Map.Entry<String, List<KeyValue>> e : byName.entrySet()) {
            KeyValue holder = e.getValue().get(0);
            for (KeyValue kv : e.getValue()) {
                if (kv.getCreateRevision() < holder.getCreateRevision()) {
                    holder = kv;
                }
            }
            names.add(e.getKey());
            holders.add(holder);
            ttls.add(holder.getLease() == 0 ? CompletableFuture.completedFuture(null)
                    : session.bounded(session.client().getLeaseClient().timeToLive(holder.getLease(),
                            LeaseOption.DEFAULT), "read lease " + Long.toHexString(holder.getLease())));
        }
        List<LockInfo> result = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            KeyValue holder = holders.get(i);
            String key = EtcdKeys.string(holder.getKey());
            long token = -1;
            for (EtcdLockOps o : ops) {
                token = Math.max(token, o.heldToken(key));
            }
            if (token < 0) {
                token = EtcdKeys.token(holder);
            }
            LeaseTimeToLiveResponse ttl = await(ttls.get(i));
            Optional<Duration> lease = ttl == null || ttl.getTTL() < 0 ? Optional.empty()
                    : Optional.of(Duration.ofSeconds(ttl.getTTL()));
            result.add(new LockInfo(names.get(i), EtcdKeys.owner(holder), 1, OptionalLong.of(token), lease,
                    OptionalInt.of(byName.get(names.get(i)).size() - 1)));
        }
        return result;
    }

    private <T> T await(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof LockUnavailableException u) {
                throw u;
            }
            throw session.unavailable("list locks", cause);
        }
    }
}
