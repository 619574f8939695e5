package io.latchkey.zookeeper.internal;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps.Attempt;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * One look at a lock's queue for one owner ({@link ZkLockOps#tryAcquire}): without a place in the queue, create a
 * protected sequential node and list the queue (back to back: one round trip); with one, list again. Answers
 * granted when nothing ahead blocks our node, else watches the one node it must outlast ({@link LockWakeUps}) and
 * answers queued with our node as the entry. It waits only for the connection (within the operation timeout) after
 * a request of its own was lost. Callbacks run on ZooKeeper's event thread, one at a time: the fields need no lock.
 *
 * <p>Protection: every create carries a fresh UUID in its name (Curator's {@code _c_<uuid>-}). If the reply is
 * lost, the node with that UUID is adopted after reconnecting only if the current session owns it; one of an
 * earlier, expired session is deleted, never trusted. A failed attempt deletes what it created (a node whose create
 * answer was lost, once it can be listed), so a waiter that failed never blocks the queue.
 */
final class ZkLockAttempt {

    final CompletableFuture<Attempt> result = new CompletableFuture<>();

    private final ZkLockOps ops;
    private final AcquireRequest request;
    private final String lockPath;
    private long sentAt;
    /** Our node, once known to be ours. */
    private ZkQueueEntry ours;
    /**
     * The protection id of the last create and its handle, which a failure cleans up after if the answer was lost;
     * the handle, not its session id then: a handle made after an expiry gets its session only when it connects.
     */
    private String protectionId;
    private ZooKeeper createHandle;
    private boolean strayPossible;
    private int epoch;

    ZkLockAttempt(ZkLockOps ops, AcquireRequest request, String lockPath) {
        this.ops = ops;
        this.request = request;
        this.lockPath = lockPath;
    }

    /** Looks once; {@code entry} is our place from the previous answer, or {@code null}. */
    CompletableFuture<Attempt> start(String entry) {
        sentAt = request.time().nanoTime();
        ZkQueueEntry q = entry == null ? null : ZkQueueEntry.parse(entry);
        if (q != null && q.sessionId() == ops.session.sessionId()) {
            ours = q;
            relist();
        } else {
            // first look, or our node went with an expired session: take a new place
            create();
        }
        return result;
    }

    private ZooKeeper zk() {
        try {
            return ops.session.zk();
        } catch (RuntimeException e) {
            fail(e);
            return null;
        }
    }

    private void create() {
        ZooKeeper zk = zk();
        if (zk == null) {
            return;
        }
        int myEpoch = ++epoch;
        String uuid = UUID.randomUUID().toString();
        protectionId = uuid;
        ours = null;
        createHandle = zk;
        SoloHistory.Previous previous = ops.kind == ZkLockOps.Kind.EXCLUSIVE
                ? ops.solo.previous(lockPath, System.nanoTime()) : null;
        boolean unlisted = ops.solo.worthTrying(previous);
        String prefix = lockPath + "/" + LockNodes.protectedName(uuid, ops.kind.prefix);
        zk.create(prefix, ZkLockOps.nodeData(request.ownerId(), ops.clientName, zk.getSessionTimeout(), -1), ops.session.acl(),
                CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, path, ctx, name, stat) -> created(myEpoch, Code.get(rc), name, stat, previous, unlisted), null);
        if (!unlisted) {
            // Sent before the create's reply: the server answers in order, so this listing already has our node.
            zk.getChildren(lockPath, false, (rc, path, ctx, children, parent) -> {
                if (myEpoch == epoch && ours != null) {
                    listed(Code.get(rc), children, parent);
                }
            }, null);
        }
    }

    private void created(int myEpoch, Code code, String name, Stat stat, SoloHistory.Previous previous,
            boolean unlisted) {
        if (myEpoch != epoch) {
            return;
        }
        switch (code) {
            case OK -> {
                // The owner is the session that ran the create, not the handle's when sent (see createHandle): a
                // wrong one would make our next attempt queue behind our own node, blocking everyone.
                ours = new ZkQueueEntry(name.substring(name.lastIndexOf('/') + 1), stat.getEphemeralOwner(),
                        stat.getCzxid());
                if (previous != null) {
                    ops.solo.created(previous, stat.getCzxid());
                }
                if (unlisted) {
                    if (previous.provesAlone(LockNodes.sequenceNumber(ours.node()), stat.getCzxid())) {
                        // no one created a child since our last, lone node was deleted: we are alone (SoloHistory)
                        grant(stat.getCzxid(), true);
                    } else {
                        relist();
                    }
                }
                // otherwise the pipelined getChildren's callback follows and evaluates
            }
            case NONODE -> ops.session.scheduler().execute(this::createLockPath);
            case CONNECTIONLOSS, OPERATIONTIMEOUT -> {
                strayPossible = true;
                afterReconnect(this::recoverProtected);
            }
            case SESSIONEXPIRED, SESSIONMOVED -> afterReconnect(this::create);
            default -> fail(ops.session.unavailable("create a node under " + lockPath,
                    KeeperException.create(code, lockPath)));
        }
    }

    /**
     * The lock path is missing (first use, or reaped as an empty container): creates it as a container (its parents
     * first if missing, {@link ZkAsync#createParents}), then the queue node again. Nothing here blocks.
     */
    private void createLockPath() {
        ZooKeeper zk = zk();
        if (zk == null) {
            return;
        }
        zk.create(lockPath, new byte[0], ops.session.acl(), CreateMode.CONTAINER, (rc, path, ctx, name) -> {
            Code code = Code.get(rc);
            if (code == Code.OK || code == Code.NODEEXISTS) {
                ops.session.scheduler().execute(this::create);
            } else if (ZkAsync.isTransient(code)) {
                afterReconnect(this::create); // the queue node's create finds the path missing again if it is
            } else if (code == Code.NONODE) {
                new ZkAsync(ops.session).createParents(zk, lockPath).whenComplete((v, e) -> {
                    if (e == null) {
                        createLockPath();
                    } else if (ZkAsync.isTransient(e)) {
                        afterReconnect(this::create);
                    } else {
                        fail(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                    }
                });
            } else {
                fail(ops.session.unavailable("create " + lockPath, KeeperException.create(code, lockPath)));
            }
        }, null);
    }

    private void afterReconnect(Runnable then) {
        ops.session.whenConnected("wait on " + lockPath).whenComplete((v, e) -> {
            if (e != null) {
                fail(e);
            } else {
                then.run();
            }
        });
    }

    /** The create's reply was lost: finds our node by its protection id, adopted only if our session owns it. */
    private void recoverProtected() {
        ZooKeeper zk = zk();
        if (zk == null) {
            return;
        }
        String uuid = protectionId;
        int myEpoch = ++epoch;
        zk.getChildren(lockPath, false, (rc, path, ctx, children) -> {
            if (myEpoch != epoch) {
                return;
            }
            Code code = Code.get(rc);
            if (code != Code.OK && code != Code.NONODE) {
                afterReconnect(this::recoverProtected);
                return;
            }
            String found = code == Code.NONODE ? null : LockNodes.findProtected(children, uuid);
            if (found == null) {
                strayPossible = false;
                create();
                return;
            }
            zk.exists(lockPath + "/" + found, false, (rc2, p2, c2, stat) -> {
                if (myEpoch != epoch) {
                    return;
                }
                Code found2 = Code.get(rc2);
                if (found2 != Code.OK && found2 != Code.NONODE) {
                    afterReconnect(this::recoverProtected); // still unknown whether the node is ours
                    return;
                }
                long current = zk.getSessionId();
                strayPossible = false;
                if (found2 == Code.OK && stat.getEphemeralOwner() == current) {
                    ours = new ZkQueueEntry(found, current, stat.getCzxid());
                    relist();
                } else {
                    if (found2 == Code.OK) {
                        // Created by a session that has since ended: it will vanish, but never count it as ours.
                        ops.deleteNode(lockPath + "/" + found, 0);
                    }
                    create();
                }
            }, null);
        }, null);
    }

    /** Lists the queue to see whether our node may hold now. */
    private void relist() {
        ZooKeeper zk = zk();
        if (zk == null) {
            return;
        }
        int myEpoch = ++epoch;
        zk.getChildren(lockPath, false, (rc, path, ctx, children, parent) -> {
            if (myEpoch == epoch) {
                listed(Code.get(rc), children, parent);
            }
        }, null);
    }

    private void listed(Code code, List<String> children, Stat parent) {
        switch (code) {
            case OK -> evaluate(children, parent);
            case NONODE -> create(); // our node went, and the empty path with it
            case SESSIONEXPIRED, SESSIONMOVED -> afterReconnect(this::create);
            case CONNECTIONLOSS, OPERATIONTIMEOUT -> afterReconnect(this::relist);
            default -> fail(ops.session.unavailable("list " + lockPath, KeeperException.create(code, lockPath)));
        }
    }

    private void evaluate(List<String> children, Stat parent) {
        List<String> sorted = LockNodes.sorted(children);
        int index = sorted.indexOf(ours.node());
        if (index < 0) {
            // our node vanished (an expired session, a forced unlock): queue again
            create();
            return;
        }
        String blocker = mustOutlast(ops.kind, sorted, index,
                node -> ops.ownedBy(lockPath, node, request.ownerId()));
        if (blocker == null) {
            grant(Math.max(ours.czxid(), parent.getPzxid()), sorted.size() == 1);
        } else {
            watch(blocker);
        }
    }

    /** Arms the watch on the node we must outlast and answers queued once armed; lists again if it went. */
    private void watch(String blocker) {
        ZooKeeper zk = zk();
        if (zk == null) {
            return;
        }
        int myEpoch = ++epoch;
        ops.wakeUps.watch(zk, lockPath + "/" + blocker, (rc, path, ctx, data, stat) -> {
            if (myEpoch != epoch) {
                return;
            }
            Code code = Code.get(rc);
            switch (code) {
                case OK -> queued();
                case NONODE -> relist();
                case SESSIONEXPIRED, SESSIONMOVED -> afterReconnect(this::create);
                case CONNECTIONLOSS, OPERATIONTIMEOUT -> afterReconnect(this::relist);
                default -> fail(ops.session.unavailable("watch " + path, KeeperException.create(code, path)));
            }
        });
    }

    /** Keeps our place; the watch on the node ahead of us wakes the engine (the re-check is its engine's bound). */
    private void queued() {
        if (!result.complete(Attempt.queued(ours.format(), 0))) {
            ops.deleteNode(lockPath + "/" + ours.node(), ours.sessionId());
        }
    }

    private void grant(long fencing, boolean alone) {
        ZkGrantState hold = new ZkGrantState(lockPath, ours.node(), ours.czxid(), fencing, ours.sessionId(), alone);
        Grant grant = new Grant(request, fencing, sentAt, hold);
        // remembered before anyone can see the grant, so that a release right after it finds the node
        ops.granted(grant);
        if (!result.complete(Attempt.granted(grant))) {
            ops.dropGrant(grant);
            return;
        }
        if (fencing != ours.czxid() && ops.kind == ZkLockOps.Kind.EXCLUSIVE) {
            recordToken(hold, fencing);
        }
    }

    /**
     * Writes a queued grant's token into its node for {@code latchkey inspect}, not waited for; only at version 0,
     * so a hand-off that rewrote the node meanwhile is never overwritten.
     */
    private void recordToken(ZkGrantState hold, long fencing) {
        try {
            ZooKeeper zk = ops.session.zk();
            zk.setData(hold.path(), ZkLockOps.nodeData(request.ownerId(), ops.clientName, zk.getSessionTimeout(), fencing), 0,
                    (rc, path, ctx, stat) -> { }, null);
        } catch (RuntimeException e) {
            // best effort: inspect then shows the node's czxid
        }
    }

    /**
     * The node the one at {@code index} of the {@code sorted} queue must outlast, or {@code null} if it holds: its
     * predecessor for a writer, the nearest writer ahead for a reader, skipping its owner's own writes
     * ({@code ownWrite}: a downgrade). A function of the listing alone.
     */
    static String mustOutlast(ZkLockOps.Kind kind, List<String> sorted, int index, Predicate<String> ownWrite) {
        switch (kind) {
            case EXCLUSIVE, WRITE -> {
                return index == 0 ? null : sorted.get(index - 1);
            }
            case READ -> {
                for (int i = index - 1; i >= 0; i--) {
                    String before = sorted.get(i);
                    if (LockNodes.isWriter(before) && !ownWrite.test(before)) {
                        return before;
                    }
                }
                return null;
            }
            default -> throw new IllegalStateException(kind.name());
        }
    }

    /** The attempt failed: nothing it created stays in the queue. */
    private void fail(Throwable e) {
        ++epoch; // a reply still on its way changes nothing
        if (ours != null) {
            ops.deleteNode(lockPath + "/" + ours.node(), ours.sessionId());
        } else if (strayPossible) {
            // the handle's session now: a create that ran got its session before it ran (0: it never ran)
            ops.deletes.dropStrays(lockPath, LockNodes.protectedName(protectionId, ops.kind.prefix),
                    createHandle.getSessionId());
        }
        result.completeExceptionally(e);
    }
}
