package io.latchkey.zookeeper.internal;

import io.latchkey.core.RemoteCountOps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;

/**
 * The layout and remote calls both semaphores share: a persistent node whose data is the number of permits (no
 * data: never set), and one ephemeral sequential child {@code _c_<id>-permit-<seq>} per permit taken; in sequence
 * order the first {@code permits} children hold. A crashed holder's children go with its session.
 *
 * <h2>One attempt</h2>
 * {@link #attempt} reads the permits and the children (back to back: one round trip) and answers "none" at once if
 * too few are free, so a waiter's look changes nothing on the server and wakes nobody. Otherwise it sends the
 * create (a multi for several permits) and the same two reads back to back (served in order: the listing has the
 * new nodes), and keeps the nodes only if all are among the first {@code permits} children, else deletes them and
 * answers "none". Waiters keep no nodes: the engine waits, woken by a persistent watch on the semaphore's node
 * ({@link ZkWatches}). A node another attempt is about to delete may make an attempt answer "none" although a
 * permit is free; that delete then wakes the waiters, who look again.
 *
 * <h2>Deletes</h2>
 * Every delete of our own node goes through {@link NodeDeletes}: this client keeps its session alive, so a lost
 * delete would hold a permit for the client's lifetime. Nodes of a create whose answer was lost are found by their
 * protected id once connected and deleted the same way.
 */
abstract class ZkPermitNodeOps implements RemoteCountOps {

    static final String PERMIT = "permit-";

    /** What an attempt created and kept: node names under {@code path}, the first node's czxid, the session. */
    record Taken(String path, List<String> names, long czxid, long sessionId) {
        String node(int i) {
            return path + "/" + names.get(i);
        }
    }

    final ZkSession session;
    final ZkAsync calls;
    final ZkCounter counter;
    final NodeDeletes deletes;
    final Function<String, String> pathOf;
    private final ZkWatches watches;

    /** @param pathOf maps a semaphore name to its node's full path */
    ZkPermitNodeOps(ZkSession session, ZkWatches watches, Function<String, String> pathOf) {
        this.session = session;
        this.calls = new ZkAsync(session);
        this.counter = new ZkCounter(calls);
        this.deletes = new NodeDeletes(session);
        this.pathOf = pathOf;
        this.watches = watches;
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return watches.subscribe(pathOf.apply(name), changed);
    }

    /** The permits less the children (permits taken), read back to back. */
    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return free(pathOf.apply(name), "read semaphore " + name);
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return counter.update(pathOf.apply(name), "set permits of semaphore " + name,
                v -> v == null ? ZkCounter.Change.put(permits, true) : ZkCounter.Change.none(false));
    }

    /** Adds {@code delta} (possibly negative: the count may go below zero, as on every backend). */
    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return counter.update(pathOf.apply(name), "add permits to semaphore " + name,
                v -> ZkCounter.Change.put((v == null ? 0 : v) + delta, (Void) null));
    }

    /**
     * One attempt to take {@code count} permits (see the class comment).
     *
     * @param protectedId the {@code <id>} of the nodes' names: unique per attempt, so that nodes whose create
     *        answer was lost can be found
     * @return what was taken, or {@code null} if not enough permits were free (nothing is left behind)
     */
    CompletableFuture<Taken> attempt(String path, String protectedId, int count, byte[] data, String operation) {
        return free(path, operation).thenCompose(free -> free < count ? CompletableFuture.completedFuture(null)
                : createAndCheck(path, protectedId, count, data, operation));
    }

    private CompletableFuture<Integer> free(String path, String operation) {
        return calls.retrying(operation, zk -> calls.read(zk, path)
                .thenCombine(calls.children(zk, path), (node, children) -> {
                    Long permits = node == null ? null : ZkCounter.parse(node.data());
                    long free = (permits == null ? 0 : permits) - children.size();
                    return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, free));
                }));
    }

    private CompletableFuture<Taken> createAndCheck(String path, String protectedId, int count, byte[] data,
                                                    String operation) {
        CompletableFuture<Taken> result = new CompletableFuture<>();
        ZooKeeper zk = session.zkOrFail(result);
        if (zk == null) {
            return result;
        }
        String prefix = LockNodes.protectedName(protectedId, PERMIT);
        CompletableFuture<Taken> created = create(zk, path, prefix, count, data);
        CompletableFuture<Integer> permits = calls.read(zk, path).thenApply(node -> {
            Long p = node == null ? null : ZkCounter.parse(node.data());
            return p == null ? 0 : (int) Math.min(Integer.MAX_VALUE, p);
        });
        CompletableFuture<List<String>> children = calls.children(zk, path);
        created.whenComplete((taken, e) -> {
            if (e != null) {
                if (ZkAsync.isTransient(e)) {
                    // the handle's session now, not when the create was sent: a handle made after an expiry gets
                    // its session only when it connects, and a create queued on it runs under that one
                    deletes.dropStrays(path, prefix, zk.getSessionId());
                }
                result.completeExceptionally(session.unavailable(operation, e));
            } else if (taken == null) {
                result.complete(null); // never set: no node, no permits
            } else {
                permits.thenCombine(children, (p, c) -> holds(taken, p, c)).whenComplete((held, e2) -> {
                    if (e2 != null || !held) {
                        deleteAll(taken);
                    }
                    if (e2 != null) {
                        result.completeExceptionally(session.unavailable(operation, e2));
                    } else if (!result.complete(held ? taken : null) && held) {
                        deleteAll(taken); // the caller gave up on the operation timeout meanwhile
                    }
                });
            }
        });
        return session.bounded(result, operation);
    }

    private static boolean holds(Taken taken, int permits, List<String> children) {
        List<String> sorted = LockNodes.sorted(children);
        for (String n : taken.names()) {
            int i = sorted.indexOf(n);
            if (i < 0 || i >= permits) {
                return false;
            }
        }
        return true;
    }

    /** The created nodes, {@code null} without a semaphore node; the session is read when the create answered. */
    private CompletableFuture<Taken> create(ZooKeeper zk, String path, String prefix, int count, byte[] data) {
        CompletableFuture<Taken> f = new CompletableFuture<>();
        if (count == 1) {
            zk.create(path + "/" + prefix, data, session.acl(), CreateMode.EPHEMERAL_SEQUENTIAL,
                    (rc, p, ctx, name, stat) -> {
                        Code code = Code.get(rc);
                        if (code == Code.OK) {
                            f.complete(new Taken(path, List.of(name.substring(name.lastIndexOf('/') + 1)),
                                    stat.getCzxid(), stat.getEphemeralOwner()));
                        } else {
                            createFailed(f, code, p);
                        }
                    }, null);
            return f;
        }
        List<Op> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ops.add(Op.create(path + "/" + prefix, data, session.acl(), CreateMode.EPHEMERAL_SEQUENTIAL));
        }
        zk.multi(ops, (rc, p, ctx, results) -> {
            Code code = Code.get(rc);
            if (code == Code.OK) {
                List<String> names = new ArrayList<>(count);
                for (OpResult r : results) {
                    String created = ((OpResult.CreateResult) r).getPath();
                    names.add(created.substring(created.lastIndexOf('/') + 1));
                }
                f.complete(new Taken(path, names, 0, zk.getSessionId()));
            } else {
                createFailed(f, code, path);
            }
        }, null);
        return f;
    }

    private void createFailed(CompletableFuture<Taken> f, Code code, String path) {
        if (code == Code.NONODE) {
            f.complete(null);
        } else if (ZkAsync.isTransient(code)) {
            f.completeExceptionally(new ZkAsync.Transient(path, code));
        } else {
            f.completeExceptionally(session.unavailable("create permits under " + path + " (" + code + ")", null));
        }
    }

    /** Deletes every node of {@code taken}, retried until the server answers. */
    void deleteAll(Taken taken) {
        for (int i = 0; i < taken.names().size(); i++) {
            deletes.delete(taken.node(i), taken.sessionId(), null).exceptionally(e -> false);
        }
    }

    /**
     * Deletes {@code node} (another client's with {@code sessionId} 0), answering whether this delete removed it;
     * after a failed first try the answer fails within the operation timeout while the delete goes on.
     */
    CompletableFuture<Boolean> deleteNode(String node, long sessionId, String operation) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        deletes.delete(node, sessionId, () -> session.bounded(answer, operation))
                .whenComplete((ok, e) -> ZkAsync.forward(answer, ok, e));
        return answer;
    }
}
