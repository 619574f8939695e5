package io.latchkey.zookeeper.internal;

import io.latchkey.core.FencedWrite;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteFencedStoreOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper fenced store: each key is a persistent node {@code <base>/stores/<escaped lock name>/<escaped key>}
 * holding the value (its parent is a container the server reaps once empty). A write is one {@code multi}: a
 * {@code check} of the holder's lock node at the version read just before (the node exists only while the hold
 * lives, and a hand-off to another owner rewrites it) and the version-checked create, set or delete of the key's
 * node. ZooKeeper applies all of a {@code multi} or none, so a write whose hold is gone changes nothing. The hold is
 * found in this client's held nodes by lock and token: another client's lease is refused as stale.
 */
public final class ZkFencedStoreOps implements RemoteFencedStoreOps {

    private static final int MAX_ROUNDS = 20;

    private final ZkSession session;
    private final ZkAsync async;
    private final HeldNodes held;
    private final Function<String, String> lockPathOf;
    private final Function<String, String> storePathOf;

    /** @param storePathOf a lock name's full store path (the parent of its keys' nodes) */
    public ZkFencedStoreOps(ZkSession session, HeldNodes held, Function<String, String> lockPathOf,
                            Function<String, String> storePathOf) {
        this.session = session;
        this.async = new ZkAsync(session);
        this.held = held;
        this.lockPathOf = lockPathOf;
        this.storePathOf = storePathOf;
    }

    private String dataPath(String lockName, String key) {
        return storePathOf.apply(lockName) + "/" + ZNodeNames.escape(key);
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        String path = dataPath(lockName, key);
        return session.bounded(async.retrying("fenced store get " + path, zk -> async.read(zk, path)),
                        "fenced store get " + path)
                .thenApply(n -> n == null ? Optional.empty()
                        : Optional.of(n.data() == null ? new byte[0] : n.data()));
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        String lockPath = lockPathOf.apply(lockName);
        Grant grant = null;
        for (Grant g : held.all()) {
            if (g.fencingToken() == token && g.backendState() instanceof ZkGrantState h && h.lockPath().equals(lockPath)) {
                grant = g;
            }
        }
        if (grant == null) {
            return CompletableFuture.completedFuture(FencedWrite.Outcome.STALE);
        }
        String operation = "fenced store " + write.kind() + " of lock " + lockName;
        return session.bounded(round(grant, dataPath(lockName, write.key()), write, operation, 0), operation);
    }

    private CompletableFuture<FencedWrite.Outcome> round(Grant grant, String dataPath, FencedWrite write,
                                                         String operation, int round) {
        if (round >= MAX_ROUNDS) {
            return CompletableFuture.failedFuture(session.unavailable(operation + ": the key kept changing under "
                    + "concurrent writes of the same hold (" + MAX_ROUNDS + " tries)", null));
        }
        ZkGrantState hold = grant.backendState(ZkGrantState.class);
        return async.retrying(operation, zk -> async.read(zk, hold.path())).thenCompose(lockNode -> {
            if (lockNode == null || lockNode.stat().getEphemeralOwner() != hold.sessionId()
                    || !grant.ownerId().equals(ZkHolders.lines(lockNode.data())[0])) {
                return CompletableFuture.completedFuture(FencedWrite.Outcome.STALE);
            }
            int holdVersion = lockNode.stat().getVersion();
            return async.retrying(operation, zk -> async.read(zk, dataPath)).thenCompose(dataNode -> {
                byte[] current = dataNode == null ? null : dataNode.data() == null ? new byte[0] : dataNode.data();
                List<Op> ops = new ArrayList<>(2);
                ops.add(Op.check(hold.path(), holdVersion));
                boolean applies = write.matches(current);
                if (!applies) {
                    if (dataNode != null) {
                        ops.add(Op.check(dataPath, dataNode.stat().getVersion()));
                    }
                } else if (write.kind() == FencedWrite.Kind.DELETE) {
                    ops.add(Op.delete(dataPath, dataNode.stat().getVersion()));
                } else if (dataNode == null) {
                    ops.add(Op.create(dataPath, write.value(), session.acl(), CreateMode.PERSISTENT));
                } else {
                    ops.add(Op.setData(dataPath, write.value(), dataNode.stat().getVersion()));
                }
                return async.retrying(operation, zk -> multi(zk, ops)).thenCompose(codes -> {
                    if (codes == null) {
                        return CompletableFuture.completedFuture(applies ? FencedWrite.Outcome.APPLIED
                                : FencedWrite.Outcome.UNCHANGED);
                    }
                    Code check = codes.get(0);
                    if (check != Code.OK && check != Code.RUNTIMEINCONSISTENCY) {
                        // the lock node changed or went: the next round's read tells a stale hold (node gone, or
                        // handed to another owner) from our own token being recorded in it after the grant
                        return round(grant, dataPath, write, operation, round + 1);
                    }
                    Code op = codes.get(1);
                    if (op == Code.NONODE && applies && dataNode == null) {
                        // the store's container parent is missing (never created, or reaped when it was empty)
                        return async.retrying(operation, zk -> async.createParents(zk, dataPath))
                                .thenCompose(v -> round(grant, dataPath, write, operation, round + 1));
                    }
                    return round(grant, dataPath, write, operation, round + 1);
                });
            });
        });
    }

    /** Runs a multi: {@code null} if it was applied, else each op's error code. */
    private CompletableFuture<List<Code>> multi(ZooKeeper zk, List<Op> ops) {
        CompletableFuture<List<Code>> f = new CompletableFuture<>();
        zk.multi(ops, (rc, path, ctx, results) -> {
            Code code = Code.get(rc);
            if (code == Code.OK) {
                f.complete(null);
            } else if (ZkAsync.isTransient(code)) {
                f.completeExceptionally(new ZkAsync.Transient("multi " + ops.get(0).getPath(), code));
            } else if (results == null || results.size() != ops.size()) {
                f.completeExceptionally(session.unavailable("fenced store multi (" + code + ")", null));
            } else {
                List<Code> codes = new ArrayList<>(results.size());
                for (OpResult r : results) {
                    codes.add(r instanceof OpResult.ErrorResult e ? Code.get(e.getErr()) : Code.OK);
                }
                f.complete(codes);
            }
        }, null);
        return f;
    }
}
