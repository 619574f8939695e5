package io.latchkey.zookeeper.internal;

import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AsyncCallback.DataCallback;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The wake-ups of one {@link ZkLockOps}' waiters ({@code RemoteLockOps#subscribe}): an attempt that queues arms a
 * one-shot data watch on the one node its waiter must outlast ({@link #watch}), and when that node is deleted or
 * rewritten the subscribers of its lock path are told. A {@code getData} rather than an {@code exists}: on a node
 * that is already gone it leaves no watch behind (an {@code exists} would wait for a create that never comes). A
 * release wakes only the client whose waiter is next in line, as in Curator's recipe: no herd, and a new waiter's
 * create wakes nobody.
 *
 * <p>This object is the watcher of every such watch, so ZooKeeper keeps one registration per watched node however
 * often it is armed. Watches live as long as the session: after a reconnect (which may have missed an event) and
 * when the session is lost every subscriber is told; its waiters' next looks list the queue again with the new
 * handle and arm new watches. Subscriptions are local ({@link PushRegistry} without a server side) and take effect
 * at once. Callbacks run on ZooKeeper's event thread or Curator's state thread and never block.
 */
final class LockWakeUps implements Watcher {

    /** Subscribers by lock path. */
    private final PushRegistry<Void> byLockPath = new PushRegistry<>();

    LockWakeUps(ZkSession session) {
        session.onReconnected(byLockPath::fireAll);
        // the waiters' nodes went with the session: they queue again (or hear of the outage) at once
        session.onSessionLost(id -> byLockPath.fireAll());
    }

    /** Tells {@code changed} about every change of a watched node under {@code lockPath}. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String lockPath, Runnable changed) {
        return byLockPath.subscribe(lockPath, changed);
    }

    /** Arms the watch on {@code nodePath} (a queue node); {@code answer} receives the {@code getData} answer. */
    void watch(ZooKeeper zk, String nodePath, DataCallback answer) {
        zk.getData(nodePath, this, answer, null);
    }

    /** A watched node was deleted or changed; connection events (type {@code None}) are not changes. */
    @Override
    public void process(WatchedEvent event) {
        String path = event.getPath();
        if (event.getType() != Event.EventType.None && path != null && path.lastIndexOf('/') > 0) {
            byLockPath.fire(path.substring(0, path.lastIndexOf('/')), null);
        }
    }
}
