package io.latchkey.zookeeper.internal;

import io.latchkey.core.Grant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The remote half of the ZooKeeper permit-expirable semaphore, on the {@link ZkPermitNodeOps} layout
 * ({@code /latchkey[/<ns>]/permits/<escaped name>}): each held permit is an ephemeral sequential child
 * {@code _c_<escaped permit id>-permit-<seq>} whose data is its lease in milliseconds. A grant's fencing token is its
 * node's czxid, which never repeats and grows in the order the attempts took permits.
 *
 * <h2>Leases</h2>
 * ZooKeeper has no expiry for single nodes. A watchdog permit lives as long as this client's session: {@link #renew}
 * checks in one pipelined batch that each node is still the one granted ({@link HeldChecks}); a crashed client's
 * permits go with its session. A fixed lease is ended by this client: the engine calls {@link #leaseEnded}, which
 * deletes the node (retried until the server answers, {@link NodeDeletes}).
 *
 * <p>{@link #release} of another client's permit finds its node by the permit id and deletes it;
 * {@link #updateLease} works only on permits this client holds.
 */
public final class ZkPermitExpirableSemaphoreOps extends ZkPermitNodeOps {

    private record Key(String path, String permitId) {
    }

    /** The permits this client holds (until released, expired, or found gone by a renewal). */
    private final Map<Key, Grant> held = new ConcurrentHashMap<>();

    public ZkPermitExpirableSemaphoreOps(ZkSession session, ZkWatches watches, Function<String, String> pathOf) {
        super(session, watches, pathOf);
    }

    @Override
    public boolean renewsPermits() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        String path = pathOf.apply(name);
        long sentAt = System.nanoTime();
        return attempt(path, ZNodeNames.escape(permitId), 1, ZkCounter.bytes(leaseMillis),
                "take a permit of semaphore " + name).thenApply(taken -> {
                    if (taken == null) {
                        return Attempt.busy(); // a lease end deletes its node: the watch tells
                    }
                    ZkGrantState hold = new ZkGrantState(path, taken.names().get(0), taken.czxid(), taken.czxid(),
                            taken.sessionId(), false);
                    Grant grant = new Grant(name, permitId, taken.czxid(), leaseMillis, watchdog, sentAt, hold);
                    held.put(new Key(path, permitId), grant);
                    return Attempt.granted(grant);
                });
    }

    /** Deletes the node of a fixed-lease permit whose lease the engine found over (retried: {@link NodeDeletes}). */
    @Override
    public void leaseEnded(String name, String permitId) {
        Key key = new Key(pathOf.apply(name), permitId);
        Grant grant = held.get(key);
        if (grant != null && !grant.watchdog() && held.remove(key, grant)) {
            ZkGrantState hold = grant.backendState(ZkGrantState.class);
            deletes.delete(hold.path(), hold.sessionId(), null).exceptionally(e -> false);
        }
    }

    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        String path = pathOf.apply(name);
        Key key = new Key(path, permitId);
        Grant grant = held.remove(key);
        String operation = "release permit " + permitId + " of semaphore " + name;
        if (grant != null) {
            ZkGrantState hold = grant.backendState(ZkGrantState.class);
            return deleteNode(hold.path(), hold.sessionId(), operation);
        }
        String prefix = LockNodes.protectedName(ZNodeNames.escape(permitId), PERMIT);
        return calls.retrying(operation, zk -> calls.children(zk, path)).thenCompose(children -> {
            for (String c : children) {
                if (c.startsWith(prefix) && LockNodes.sequenceNumber(c) >= 0
                        && c.length() == prefix.length() + 10) {
                    return deleteNode(path + "/" + c, 0, operation);
                }
            }
            return CompletableFuture.completedFuture(false);
        });
    }

    /** Rewrites the node's lease (which also proves it is still there); the engine moves the lease's end. */
    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        Key key = new Key(pathOf.apply(name), permitId);
        Grant before = held.get(key);
        if (before == null) {
            return CompletableFuture.completedFuture(false); // expired, released, or another client's
        }
        ZkGrantState hold = before.backendState(ZkGrantState.class);
        long sentAt = System.nanoTime();
        return calls.retrying("update the lease of permit " + permitId,
                zk -> calls.write(zk, hold.path(), ZkCounter.bytes(leaseMillis), -1)).thenApply(code -> {
                    if (code != Code.OK) {
                        held.remove(key, before);
                        return false;
                    }
                    Grant fixed = new Grant(name, permitId, before.fencingToken(), leaseMillis, false, sentAt, hold);
                    return held.replace(key, before, fixed); // false: released or expired meanwhile
                });
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return HeldChecks.lost(session, grants, "permit nodes").thenApply(lost -> {
            for (Grant g : lost) {
                held.remove(new Key(g.backendState(ZkGrantState.class).lockPath(), g.ownerId()), g);
            }
            return lost;
        });
    }

    /** Deletes the nodes of every permit held (a client on an application's framework, whose session lives on). */
    public CompletableFuture<Void> deleteHeld() {
        List<CompletableFuture<Boolean>> deleted = new ArrayList<>();
        for (Map.Entry<Key, Grant> e : held.entrySet()) {
            if (held.remove(e.getKey(), e.getValue())) {
                ZkGrantState hold = e.getValue().backendState(ZkGrantState.class);
                deleted.add(deletes.delete(hold.path(), hold.sessionId(), null).exceptionally(x -> false));
            }
        }
        return CompletableFuture.allOf(deleted.toArray(new CompletableFuture<?>[0]));
    }
}
