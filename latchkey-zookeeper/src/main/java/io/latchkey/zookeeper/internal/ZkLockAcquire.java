package io.latchkey.zookeeper.internal;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * One owner's way through a lock queue: create a protected sequential node, list the queue (pipelined with the
 * create), and either hold or watch the one node it must outlast, until granted, given up or failed.
 *
 * <p>Callbacks run on ZooKeeper's event thread, one at a time and in request order, so the fields written there
 * need no locking; {@link #finished} settles the race between a grant and a give-up from another thread.
 *
 * <p>Protection: every create carries a fresh UUID in its name (Curator's {@code _c_<uuid>-} prefix). If the reply
 * is lost, the queue is listed after reconnecting and the node with that UUID is adopted only if the current
 * session owns it; a node left by an earlier, expired session is deleted, never trusted.
 */
final class ZkLockAcquire {

    final CompletableFuture<Grant> result = new CompletableFuture<>();

    private final ZkLockOps ops;
    private final AcquireRequest request;
    private final String lockPath;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile ScheduledFuture<?> deadlineTimer;
    // Written on the event thread (or before the first request is sent); read by give-up from any thread.
    private volatile String node;
    private volatile long token;
    private volatile long nodeSession;
    private volatile long sentAt;
    private volatile String protectionId;
    private volatile int epoch;

    ZkLockAcquire(ZkLockOps ops, AcquireRequest request, String lockPath) {
        this.ops = ops;
        this.request = request;
        this.lockPath = lockPath;
    }

    void start() {
        if (request.isCancelled()) {
            finishEmpty();
            return;
        }
        // A single attempt (deadline already passed) is decided by its first listing, not raced by a timer.
        if (request.deadlineNanos() != AcquireRequest.NO_DEADLINE && !request.isExpired()) {
            deadlineTimer = ops.session.scheduler().schedule(this::giveUp, request.remainingNanos(),
                    TimeUnit.NANOSECONDS);
        }
        request.cancelled().thenRun(this::giveUp);
        create();
    }

    private void create() {
        if (finished.get()) {
            return;
        }
        ZooKeeper zk;
        try {
            zk = ops.session.zk();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        int myEpoch = ++epoch;
        String uuid = UUID.randomUUID().toString();
        protectionId = uuid;
        node = null;
        sentAt = request.time().nanoTime();
        long sessionId = zk.getSessionId();
        long expected = ops.kind == ZkLockOps.Kind.EXCLUSIVE
                ? ops.solo.expectedNext(lockPath, System.nanoTime()) : -1;
        String prefix = lockPath + "/" + LockNodes.protectedName(uuid, ops.kind.prefix);
        zk.create(prefix, ZkLockOps.nodeData(request.ownerId(), zk.getSessionTimeout(), -1), ops.session.acl(),
                CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, path, ctx, name, stat) -> created(myEpoch, Code.get(rc), name, stat, sessionId, expected), null);
        if (expected < 0) {
            // Sent before the create's reply: the server answers in order, so this listing already has our node.
            zk.getChildren(lockPath, false, (rc, path, ctx, children, parent) -> {
                if (myEpoch == epoch && node != null && Code.get(rc) == Code.OK) {
                    evaluate(children, parent);
                }
            }, null);
        }
    }

    private void created(int myEpoch, Code code, String name, Stat stat, long sessionId, long expected) {
        if (myEpoch != epoch) {
            if (code == Code.OK) {
                // a newer attempt superseded this create: its node must not linger in the queue
                ops.deleteNode(name, sessionId);
            }
            return;
        }
        switch (code) {
            case OK -> {
                node = name.substring(name.lastIndexOf('/') + 1);
                token = stat.getCzxid();
                nodeSession = sessionId;
                if (finished.get()) {
                    ops.deleteNode(lockPath + "/" + node, sessionId);
                } else if (expected >= 0) {
                    if (LockNodes.sequenceNumber(node) == expected) {
                        // no one created a child since our last, lone node was deleted: we are alone (SoloHistory)
                        grant(node, stat.getCzxid(), true);
                    } else {
                        relist();
                    }
                }
                // otherwise the pipelined getChildren's callback follows and evaluates
            }
            case NONODE -> ops.session.scheduler().execute(this::createLockPath);
            case CONNECTIONLOSS, OPERATIONTIMEOUT -> afterReconnect(this::recoverProtected);
            case SESSIONEXPIRED, SESSIONMOVED -> afterReconnect(this::create);
            default -> fail(ops.session.unavailable("create a node under " + lockPath,
                    KeeperException.create(code, lockPath)));
        }
    }

    /**
     * The lock path is missing (first use of the name, or the server reaped it as an empty container): one
     * asynchronous create of the path as a container node, then the queue node again. Only when a parent is missing
     * too (rare: the lock root of a new namespace) are the parents created the blocking way. The session's one
     * scheduler thread never waits on a round trip here, so many threads locking new names do not queue on it.
     */
    private void createLockPath() {
        ZooKeeper zk;
        try {
            zk = ops.session.zk();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        zk.create(lockPath, new byte[0], ops.session.acl(), CreateMode.CONTAINER, (rc, path, ctx, name) -> {
            Code code = Code.get(rc);
            if (code == Code.OK || code == Code.NODEEXISTS) {
                ops.session.scheduler().execute(this::create);
            } else if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT || code == Code.SESSIONEXPIRED
                    || code == Code.SESSIONMOVED) {
                afterReconnect(this::create); // the queue node's create finds the path missing again if it is
            } else {
                ops.session.scheduler().execute(() -> {
                    try {
                        ops.session.createContainers(lockPath);
                        create();
                    } catch (RuntimeException e) {
                        fail(e);
                    }
                });
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

    /** The create's reply was lost: find our node by its protection id, adopt it only if this client's ZooKeeper session owns it. */
    private void recoverProtected() {
        String uuid = protectionId;
        ZooKeeper zk;
        try {
            zk = ops.session.zk();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        int myEpoch = ++epoch;
        zk.getChildren(lockPath, false, (rc, path, ctx, children) -> {
            if (myEpoch != epoch) {
                return;
            }
            Code code = Code.get(rc);
            if (code == Code.NONODE) {
                create();
                return;
            }
            if (code != Code.OK) {
                afterReconnect(this::recoverProtected);
                return;
            }
            String found = LockNodes.findProtected(children, uuid);
            if (found == null) {
                create();
                return;
            }
            zk.exists(lockPath + "/" + found, false, (rc2, p2, c2, stat) -> {
                if (myEpoch != epoch) {
                    return;
                }
                long current = zk.getSessionId();
                if (Code.get(rc2) == Code.OK && stat.getEphemeralOwner() == current) {
                    node = found;
                    token = stat.getCzxid();
                    nodeSession = current;
                    if (finished.get()) {
                        ops.deleteNode(lockPath + "/" + found, current);
                        return;
                    }
                    relist();
                } else {
                    if (Code.get(rc2) == Code.OK) {
                        // Created by a session that has since ended: it will vanish, but never count it as ours.
                        ops.deleteNode(lockPath + "/" + found, 0);
                    }
                    create();
                }
            }, null);
        }, null);
    }

    /** Lists the queue again: after a watch fired, after a reconnect, or when the predecessor was already gone. */
    void relist() {
        if (finished.get() || node == null) {
            return;
        }
        ZooKeeper zk;
        try {
            zk = ops.session.zk();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        int myEpoch = epoch;
        zk.getChildren(lockPath, false, (rc, path, ctx, children, parent) -> {
            if (myEpoch != epoch) {
                return;
            }
            Code code = Code.get(rc);
            if (code == Code.OK) {
                evaluate(children, parent);
            } else if (code == Code.NONODE) {
                lostOurNode();
            } else if (code == Code.SESSIONEXPIRED) {
                afterReconnect(this::create);
            } else {
                afterReconnect(this::relist);
            }
        }, null);
    }

    private void evaluate(List<String> children, Stat parent) {
        if (finished.get()) {
            return;
        }
        String ours = node;
        List<String> sorted = LockNodes.sorted(children);
        int index = sorted.indexOf(ours);
        if (index < 0) {
            lostOurNode();
            return;
        }
        String mustOutlast = mustOutlast(sorted, index);
        if (mustOutlast == null) {
            grant(ours, Math.max(token, parent.getPzxid()), sorted.size() == 1);
            return;
        }
        if (request.isExpired() || request.isCancelled()) {
            giveUp();
            return;
        }
        watch(mustOutlast);
    }

    private void grant(String ours, long fencing, boolean alone) {
        ZkGrantState hold = new ZkGrantState(lockPath, ours, token, fencing, nodeSession, alone);
        Grant grant = new Grant(request, fencing, sentAt, hold);
        if (finished.compareAndSet(false, true)) {
            cancelTimer();
            ops.granted(grant);
            result.complete(grant);
            if (fencing != token && ops.kind == ZkLockOps.Kind.EXCLUSIVE) {
                recordToken(hold, fencing);
            }
        } else {
            ops.deleteNode(hold.path(), nodeSession);
        }
    }

    /**
     * Writes a queued grant's token into its node, for {@code latchkey inspect} (other clients cannot derive it:
     * it depends on the listing that granted it). Sent after the grant, never waited for: only if the node is
     * still unmodified (version 0), so a hand-off that rewrote it meanwhile is never overwritten.
     */
    private void recordToken(ZkGrantState hold, long fencing) {
        try {
            ZooKeeper zk = ops.session.zk();
            zk.setData(hold.path(), ZkLockOps.nodeData(request.ownerId(), zk.getSessionTimeout(), fencing), 0,
                    (rc, path, ctx, stat) -> { }, null);
        } catch (RuntimeException e) {
            // best effort: inspect then shows the node's czxid
        }
    }

    /** The node we wait for, or {@code null} if we hold. Only the nearest blocker is watched: no herd. */
    private String mustOutlast(List<String> sorted, int index) {
        switch (ops.kind) {
            case EXCLUSIVE, WRITE -> {
                return index == 0 ? null : sorted.get(index - 1);
            }
            case READ -> {
                for (int i = index - 1; i >= 0; i--) {
                    String before = sorted.get(i);
                    if (LockNodes.isWriter(before) && !ops.ownedBy(lockPath, before, request.ownerId())) {
                        return before;
                    }
                }
                return null;
            }
            default -> throw new IllegalStateException(ops.kind.name());
        }
    }

    private void watch(String predecessor) {
        ZooKeeper zk;
        try {
            zk = ops.session.zk();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        int myEpoch = epoch;
        Watcher watcher = (WatchedEvent event) -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                relist();
            } else if (event.getState() == Watcher.Event.KeeperState.Expired) {
                afterReconnect(this::create);
            }
        };
        zk.exists(lockPath + "/" + predecessor, watcher, (rc, path, ctx, stat) -> {
            if (myEpoch != epoch) {
                return;
            }
            Code code = Code.get(rc);
            if (code == Code.NONODE || (code == Code.OK && stat == null)) {
                relist();
            } else if (code == Code.SESSIONEXPIRED) {
                afterReconnect(this::create);
            } else if (code != Code.OK) {
                afterReconnect(this::relist);
            }
            // OK with a stat: wait for the watch
        }, null);
    }

    /** Our node vanished while we waited (session loss, force-unlock): queue again unless the wait is over. */
    private void lostOurNode() {
        if (request.isExpired() || request.isCancelled()) {
            finishEmpty();
        } else {
            create();
        }
    }

    /** Deadline passed or the caller abandoned the request: leave the queue. */
    void giveUp() {
        if (finished.compareAndSet(false, true)) {
            cancelTimer();
            String ours = node;
            if (ours != null) {
                ops.deleteNode(lockPath + "/" + ours, nodeSession);
            }
            result.complete(null);
        }
    }

    private void finishEmpty() {
        if (finished.compareAndSet(false, true)) {
            cancelTimer();
            result.complete(null);
        }
    }

    private void fail(Throwable e) {
        if (finished.compareAndSet(false, true)) {
            cancelTimer();
            String ours = node;
            if (ours != null) {
                ops.deleteNode(lockPath + "/" + ours, nodeSession);
            }
            result.completeExceptionally(e);
        }
    }

    private void cancelTimer() {
        ScheduledFuture<?> t = deadlineTimer;
        if (t != null) {
            t.cancel(false);
        }
    }
}
