package io.latchkey.zookeeper.internal;

import io.latchkey.core.RetriedRemoval;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes of our own nodes that must reach the server, through the engine's {@link RetriedRemoval}: an ephemeral
 * node lives as long as its session, which this client keeps alive, so a lost delete would keep the lock taken or
 * the permit used for the client's lifetime. A connection loss is tried again every {@value #RETRY_MILLIS} ms once
 * connected, until the server confirms the node gone or the session that owned it has ended (and took it).
 */
final class NodeDeletes {
    private static final Logger log = LoggerFactory.getLogger(NodeDeletes.class);
    static final long RETRY_MILLIS = 50;

    private final ZkSession session;
    private final ZkAsync calls;
    private final RetriedRemoval removals;

    NodeDeletes(ZkSession session) {
        this.session = session;
        this.calls = new ZkAsync(session);
        this.removals = new RetriedRemoval(
                (task, delayMillis) -> session.scheduler().schedule(task, delayMillis, TimeUnit.MILLISECONDS),
                () -> !session.scheduler().isShutdown(), RETRY_MILLIS, RETRY_MILLIS, log);
    }

    /**
     * Deletes {@code path}; completes at the first definitive answer with whether this delete removed it
     * (exceptionally only for an error other than a connection loss, such as a missing permission).
     *
     * @param sessionId the session that owns the node; 0 means "not ours, no session check"
     * @param onFirstRetry run once when the first try failed (may be {@code null})
     */
    CompletableFuture<Boolean> delete(String path, long sessionId, Runnable onFirstRetry) {
        return removals.now("delete of " + path, retry -> retry == 0 ? deleteOnce(path, sessionId, false)
                        : session.whenConnected("delete " + path).handle((v, e) -> null)
                                .thenCompose(v -> deleteOnce(path, sessionId, true)),
                e -> e instanceof ZkAsync.Transient, false, onFirstRetry); // did not reach the server
    }

    private CompletableFuture<Boolean> deleteOnce(String path, long sessionId, boolean retried) {
        ZooKeeper zk;
        try {
            zk = session.zk();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new ZkAsync.Transient(path, Code.CONNECTIONLOSS));
        }
        if (sessionId != 0 && zk.getSessionId() != sessionId) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        zk.delete(path, -1, (rc, p, ctx) -> {
            Code code = Code.get(rc);
            switch (code) {
                case OK -> answer.complete(true);
                // After a lost reply our own earlier try may be the one that deleted it.
                case NONODE -> answer.complete(retried);
                case SESSIONEXPIRED -> answer.complete(false);
                case CONNECTIONLOSS, OPERATIONTIMEOUT -> answer.completeExceptionally(new ZkAsync.Transient(p, code));
                default -> answer.completeExceptionally(session.unavailable("delete " + p + " (" + code + ")", null));
            }
        }, null);
        return answer;
    }

    /**
     * After a create whose answer was lost: once connected, deletes the children of {@code parent} named with
     * {@code prefix} if the session that may have created them still lives; tried every second until listed.
     */
    void dropStrays(String parent, String prefix, long sessionId) {
        try {
            session.scheduler().schedule(() -> session.whenConnected("list " + parent).thenCompose(v -> {
                if (session.sessionId() != sessionId) {
                    return CompletableFuture.completedFuture(null);
                }
                return calls.retrying("list " + parent, zk -> calls.children(zk, parent)).thenAccept(children -> {
                    for (String c : children) {
                        if (c.startsWith(prefix)) {
                            delete(parent + "/" + c, sessionId, null).exceptionally(e -> false);
                        }
                    }
                });
            }).whenComplete((v, e) -> {
                if (e != null) {
                    dropStrays(parent, prefix, sessionId);
                }
            }), 1, TimeUnit.SECONDS);
        } catch (RejectedExecutionException e) {
            // closing: the session's end removes the nodes
        }
    }
}
