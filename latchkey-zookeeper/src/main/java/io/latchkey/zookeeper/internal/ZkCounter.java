package io.latchkey.zookeeper.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/**
 * A number kept as the decimal data of a persistent node (a semaphore's permits, a latch's count), changed only by
 * compare-and-set on the node's version (read, decide, write with the version read, again on a conflict), so
 * concurrent changes are never lost, and retrying after a connection loss ({@link ZkAsync#retrying}) is safe. A
 * missing node or one without data reads as "never set" ({@code null}).
 */
final class ZkCounter {

    /** What {@link #update} does with the value it read. */
    record Change<T>(Kind kind, long value, T result) {
        enum Kind { NONE, PUT, DELETE }

        static <T> Change<T> none(T result) {
            return new Change<>(Kind.NONE, 0, result);
        }

        static <T> Change<T> put(long value, T result) {
            return new Change<>(Kind.PUT, value, result);
        }

        static <T> Change<T> delete(T result) {
            return new Change<>(Kind.DELETE, 0, result);
        }
    }

    private final ZkAsync calls;

    ZkCounter(ZkAsync calls) {
        this.calls = calls;
    }

    static Long parse(byte[] data) {
        if (data == null || data.length == 0) {
            return null;
        }
        return Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
    }

    static byte[] bytes(long value) {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }

    /** The value, or {@code null} if never set. */
    CompletableFuture<Long> read(String path, String operation) {
        return calls.retrying(operation, zk -> calls.read(zk, path))
                .thenApply(n -> n == null ? null : parse(n.data()));
    }

    /**
     * Reads the value, applies {@code decide} and makes its change if the node is unchanged meanwhile, else reads
     * again. A put on a missing node creates it (and its missing ancestors, as containers).
     */
    <T> CompletableFuture<T> update(String path, String operation, Function<Long, Change<T>> decide) {
        return calls.retrying(operation, zk -> calls.read(zk, path).thenCompose(node -> {
            Change<T> change = decide.apply(node == null ? null : parse(node.data()));
            if (change.kind() == Change.Kind.NONE) {
                return CompletableFuture.completedFuture(change);
            }
            CompletableFuture<Code> written;
            if (node == null) {
                written = change.kind() == Change.Kind.DELETE ? CompletableFuture.completedFuture(Code.OK)
                        : create(zk, path, change.value());
            } else if (change.kind() == Change.Kind.PUT) {
                written = calls.write(zk, path, bytes(change.value()), node.stat().getVersion());
            } else {
                written = calls.delete(zk, path, node.stat().getVersion());
            }
            return written.thenApply(code -> code == Code.OK ? change : null);
        })).thenCompose(change -> change == null ? update(path, operation, decide)
                : CompletableFuture.completedFuture(change.result()));
    }

    /** {@code OK}, or {@code NODEEXISTS} (someone else was first: read again). */
    private CompletableFuture<Code> create(ZooKeeper zk, String path, long value) {
        return calls.create(zk, path, bytes(value), CreateMode.PERSISTENT).thenCompose(code -> code != Code.NONODE
                ? CompletableFuture.completedFuture(code)
                // the parent was never made, or the server reaped the emptied container meanwhile
                : calls.createParents(zk, path).thenCompose(v -> create(zk, path, value)));
    }
}
