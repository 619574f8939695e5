package io.latchkey.zookeeper.internal;

import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AsyncCallback.DataCallback;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The wake-ups of one {@link ZkLockOps}' waiters: a queued attempt arms a one-shot data watch on the node its waiter
 * must outlast ({@link #watch}); its deletion or rewrite tells the subscribers of its lock path, so a release wakes
 * only the client whose waiter is next. A {@code getData}, not an {@code exists}: on a node already gone it leaves
 * no watch behind. This object is the watcher of every watch, so ZooKeeper keeps one registration per node however
 * often it is armed. After a reconnect (which may have missed an event) and a lost session every subscriber is
 * told, and its next look arms new watches. Subscriptions are local ({@link PushRegistry}); callbacks never block.
 */
final class LockWakeUps implements Watcher {

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
