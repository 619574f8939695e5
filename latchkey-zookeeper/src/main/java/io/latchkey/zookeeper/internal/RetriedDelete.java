package io.latchkey.zookeeper.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/**
 * Deletes of our own nodes that must reach the server: a lock's or a semaphore's ephemeral node lives as long as its
 * session, which this client keeps alive for its other nodes, so a delete lost to a connection loss (a leader
 * election, a server restart) would otherwise keep the lock taken or the permit used for the client's lifetime.
 *
 * <p>Asynchronous, on the session's scheduler: each delete is retried every 50 ms once the session is connected again,
 * until the server confirms the node gone (deleted now, or already) or the session that owned it has ended (then
 * ZooKeeper removed it). Closing the session ends the retries (its end removes the nodes). No I/O under a lock.
 */
final class RetriedDelete {

    private final ZkSession session;

    RetriedDelete(ZkSession session) {
        this.session = session;
    }

    /**
     * Deletes {@code path}; completes at the first definitive answer with whether this delete removed it
     * (exceptionally only for an error other than a connection loss, such as a missing permission).
     *
     * @param sessionId the session that owns the node; 0 means "not ours, no session check"
     * @param onFirstRetry run once when the first attempt failed (may be {@code null})
     */
    CompletableFuture<Boolean> delete(String path, long sessionId, Runnable onFirstRetry) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        attempt(path, sessionId, done, false, onFirstRetry);
        return done;
    }

    private void attempt(String path, long sessionId, CompletableFuture<Boolean> done, boolean retried,
                         Runnable onFirstRetry) {
        if (session.scheduler().isShutdown()) {
            done.complete(false);
            return;
        }
        ZooKeeper zk;
        try {
            zk = session.zk();
        } catch (RuntimeException e) {
            retryLater(path, sessionId, done, retried, onFirstRetry);
            return;
        }
        if (sessionId != 0 && zk.getSessionId() != sessionId) {
            done.complete(false);
            return;
        }
        zk.delete(path, -1, (rc, p, ctx) -> {
            Code code = Code.get(rc);
            switch (code) {
                case OK -> done.complete(true);
                // After a lost reply our own earlier attempt may be the one that deleted it.
                case NONODE -> done.complete(retried);
                case SESSIONEXPIRED -> done.complete(false);
                case CONNECTIONLOSS, OPERATIONTIMEOUT -> retryLater(path, sessionId, done, retried, onFirstRetry);
                default -> done.completeExceptionally(session.unavailable("delete " + p + " (" + code + ")", null));
            }
        }, null);
    }

    private void retryLater(String path, long sessionId, CompletableFuture<Boolean> done, boolean retried,
                            Runnable onFirstRetry) {
        if (session.scheduler().isShutdown()) {
            done.complete(false);
            return;
        }
        if (!retried && onFirstRetry != null) {
            onFirstRetry.run();
        }
        try {
            session.scheduler().schedule(() -> session.whenConnected("delete " + path).whenComplete(
                    (v, e) -> attempt(path, sessionId, done, true, null)), 50, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            done.complete(false); // closing: the session's end removes the node
        }
    }
}
