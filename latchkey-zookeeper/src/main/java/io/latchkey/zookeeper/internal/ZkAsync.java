package io.latchkey.zookeeper.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Single calls on the raw asynchronous ZooKeeper API as futures, completed on ZooKeeper's event thread: answering the
 * codes their callers interpret (a missing node, a version conflict), failing with {@link Transient} on a connection
 * loss, a timeout or an expired session, with {@link io.latchkey.LockUnavailableException} otherwise.
 * {@link #retrying} sends a call again after a transient failure, once connected, until the operation timeout.
 */
public final class ZkAsync {

    /** A node's data and stat. */
    public record Node(byte[] data, Stat stat) {
    }

    /** A failure that may go away once the connection is back; the call's outcome is unknown. */
    static final class Transient extends RuntimeException {
        final Code code;

        Transient(String path, Code code) {
            super(path + ": " + code, null, false, false);
            this.code = code;
        }
    }

    private final ZkSession session;

    ZkAsync(ZkSession session) {
        this.session = session;
    }

    /** Completes {@code f} as a {@code whenComplete} answer did. */
    static <T> void forward(CompletableFuture<T> f, T value, Throwable error) {
        if (error == null) {
            f.complete(value);
        } else {
            f.completeExceptionally(error);
        }
    }

    static boolean isTransient(Code code) {
        return code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT || code == Code.SESSIONEXPIRED
                || code == Code.SESSIONMOVED;
    }

    /** Whether {@code error} (possibly wrapped) is a {@link Transient} failure. */
    static boolean isTransient(Throwable error) {
        return (error instanceof CompletionException && error.getCause() != null ? error.getCause() : error)
                instanceof Transient;
    }

    /**
     * The children of {@code path} (none if it does not exist) within the operation timeout, as of this call: a
     * {@code sync} goes first, so a server of an ensemble that lags its leader answers only after it has caught up,
     * and the listing shows every write another client saw completed before this call (an operator's "who holds
     * it?" must not miss a hold that was granted elsewhere a moment ago). For reads off the lock path only: the
     * sync is pipelined with the listing, one more request but no more waiting on a server that is up to date.
     */
    public static CompletableFuture<List<String>> listed(ZkSession session, String path) {
        return untransient(session, path, "list", zk -> {
            zk.sync(path, (rc, p, ctx) -> { }, null); // its outcome shows in the listing that follows it in order
            return new ZkAsync(session).children(zk, path);
        });
    }

    /** The data and stat of {@code path}, {@code null} if it is gone; otherwise as {@link #listed}. */
    public static CompletableFuture<Node> readOrNull(ZkSession session, String path) {
        return untransient(session, path, "read", zk -> new ZkAsync(session).read(zk, path));
    }

    private static <T> CompletableFuture<T> untransient(ZkSession session, String path, String operation,
            Function<ZooKeeper, CompletableFuture<T>> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        ZooKeeper zk = session.zkOrFail(result);
        if (zk != null) {
            call.apply(zk).whenComplete((v, e) -> forward(result, v, e instanceof Transient t ? session.unavailable(
                    operation + " " + path, org.apache.zookeeper.KeeperException.create(t.code, path)) : e));
        }
        return session.bounded(result, operation + " " + path);
    }

    /** Completes {@code f} with {@code value} on {@code OK} or an {@code expected} code, else fails it. */
    private <T> void settle(CompletableFuture<T> f, Code code, String path, String operation, T value,
            Code... expected) {
        if (code == Code.OK || java.util.Arrays.asList(expected).contains(code)) {
            f.complete(value);
        } else if (isTransient(code)) {
            f.completeExceptionally(new Transient(path, code));
        } else {
            f.completeExceptionally(session.unavailable(operation + " " + path + " (" + code + ")", null));
        }
    }

    /** The node's data and stat, or {@code null} if it does not exist. */
    CompletableFuture<Node> read(ZooKeeper zk, String path) {
        CompletableFuture<Node> f = new CompletableFuture<>();
        zk.getData(path, false, (rc, p, ctx, data, stat) -> settle(f, Code.get(rc), p, "read",
                rc == Code.OK.intValue() ? new Node(data, stat) : null, Code.NONODE), null);
        return f;
    }

    /** The children's names (unsorted), empty if the node does not exist. */
    CompletableFuture<List<String>> children(ZooKeeper zk, String path) {
        CompletableFuture<List<String>> f = new CompletableFuture<>();
        zk.getChildren(path, false, (rc, p, ctx, children) -> settle(f, Code.get(rc), p, "list",
                rc == Code.OK.intValue() ? children : List.of(), Code.NONODE), null);
        return f;
    }

    /** A version-checked write: {@code OK}, {@code BADVERSION} or {@code NONODE}. */
    CompletableFuture<Code> write(ZooKeeper zk, String path, byte[] data, int version) {
        CompletableFuture<Code> f = new CompletableFuture<>();
        zk.setData(path, data, version, (rc, p, ctx, stat) -> settle(f, Code.get(rc), p, "write", Code.get(rc),
                Code.BADVERSION, Code.NONODE), null);
        return f;
    }

    /** A create (with an open ACL for a shared container): {@code OK}, {@code NODEEXISTS} or {@code NONODE}. */
    CompletableFuture<Code> create(ZooKeeper zk, String path, byte[] data, CreateMode mode) {
        CompletableFuture<Code> f = new CompletableFuture<>();
        zk.create(path, data, mode == CreateMode.CONTAINER ? org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE
                : session.acl(), mode, (rc, p, ctx, name) -> settle(f, Code.get(rc), p, "create", Code.get(rc),
                Code.NODEEXISTS, Code.NONODE), null);
        return f;
    }

    /** A version-checked delete: {@code OK}, {@code BADVERSION} or {@code NONODE}. */
    CompletableFuture<Code> delete(ZooKeeper zk, String path, int version) {
        CompletableFuture<Code> f = new CompletableFuture<>();
        zk.delete(path, version, (rc, p, ctx) -> settle(f, Code.get(rc), p, "delete", Code.get(rc),
                Code.BADVERSION, Code.NONODE), null);
        return f;
    }

    /** Creates the missing ancestors of {@code path} as open containers (others' primitives live beside ours). */
    CompletableFuture<Void> createParents(ZooKeeper zk, String path) {
        String parent = path.substring(0, path.lastIndexOf('/'));
        if (parent.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return create(zk, parent, new byte[0], CreateMode.CONTAINER).thenCompose(code -> code != Code.NONODE
                ? CompletableFuture.<Void>completedFuture(null)
                : createParents(zk, parent).thenCompose(v -> createParents(zk, path)));
    }

    /**
     * Runs {@code call}; after a {@link Transient} failure again once connected (at most every 20 ms), until the
     * operation timeout. Only for calls safe to repeat (reads, version-checked writes).
     */
    <T> CompletableFuture<T> retrying(String operation, Function<ZooKeeper, CompletableFuture<T>> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        long deadline = System.nanoTime() + session.operationTimeout().toNanos();
        send(operation, call, result, deadline);
        return result;
    }

    private <T> void send(String operation, Function<ZooKeeper, CompletableFuture<T>> call,
                          CompletableFuture<T> result, long deadline) {
        CompletableFuture<T> f;
        try {
            f = call.apply(session.zk());
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(new Transient(operation, Code.CONNECTIONLOSS));
        }
        f.whenComplete((v, e) -> {
            if (e == null) {
                result.complete(v);
            } else if (!isTransient(e)) {
                result.completeExceptionally(e instanceof CompletionException && e.getCause() != null
                        ? e.getCause() : e);
            } else if (System.nanoTime() - deadline >= 0) {
                result.completeExceptionally(session.unavailable(operation + " within "
                        + session.operationTimeout().toMillis() + " ms", e));
            } else {
                try {
                    session.scheduler().schedule(() -> session.whenConnected(operation).whenComplete((c, ce) -> {
                        if (ce != null) {
                            result.completeExceptionally(ce);
                        } else {
                            send(operation, call, result, deadline);
                        }
                    }), 20, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException closing) {
                    result.completeExceptionally(session.unavailable(operation + " (client closed)", e));
                }
            }
        });
    }
}
