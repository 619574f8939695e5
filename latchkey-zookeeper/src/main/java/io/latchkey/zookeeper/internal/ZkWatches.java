package io.latchkey.zookeeper.internal;

import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The wake-ups of the counted primitives ({@link RemoteCountOps#subscribe}): one persistent watch
 * ({@link AddWatchMode#PERSISTENT}) per watched node and client, shared by its subscribers ({@link PushRegistry}),
 * firing on every change of the node's data, of its children and on its creation or deletion; ready once the server
 * confirmed it, removed after the last subscriber left. A reconnect wakes every subscriber (a change during the
 * outage may have fired no event); after a session expiry each live watch is registered again on the new handle.
 * The engine's re-check covers whatever falls between. Callbacks never block.
 */
public final class ZkWatches {

    private final ZkSession session;
    private final PushRegistry<Void> subscribers = new PushRegistry<>(this::watch);
    private final Set<Watch> live = ConcurrentHashMap.newKeySet();

    public ZkWatches(ZkSession session) {
        this.session = session;
        session.onReconnected(this::reconnected);
    }

    /** Watches {@code path}; the future completes once the server registered the watch. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String path, Runnable changed) {
        return subscribers.subscribe(path, changed);
    }

    /** The one watch of {@code path}, for its first subscriber; removed again if it is not confirmed in time. */
    private CompletableFuture<RemoteCountOps.Subscription> watch(String path) {
        Watch w = new Watch(path);
        live.add(w);
        CompletableFuture<RemoteCountOps.Subscription> ready = new CompletableFuture<>();
        w.register(ready);
        return session.bounded(ready, "watch " + path).whenComplete((s, e) -> {
            if (e != null) {
                w.close();
            }
        });
    }

    private void reconnected() {
        ZooKeeper now;
        try {
            now = session.zk();
        } catch (RuntimeException e) {
            return;
        }
        for (Watch w : live) {
            if (w.on != now) {
                w.register(new CompletableFuture<>());
            }
        }
        subscribers.fireAll();
    }

    private final class Watch implements Watcher, RemoteCountOps.Subscription {
        final String path;
        final AtomicBoolean closed = new AtomicBoolean();
        volatile ZooKeeper on;

        Watch(String path) {
            this.path = path;
        }

        void register(CompletableFuture<RemoteCountOps.Subscription> ready) {
            ZooKeeper zk = session.zkOrFail(ready);
            if (zk == null) {
                return;
            }
            on = zk;
            zk.addWatch(path, this, AddWatchMode.PERSISTENT, (rc, p, ctx) -> {
                Code code = Code.get(rc);
                if (code == Code.OK) {
                    ready.complete(this);
                    if (closed.get()) {
                        remove(zk); // closed while a re-registration was on its way
                    }
                } else {
                    ready.completeExceptionally(session.unavailable("watch " + p + " (" + code + ")", null));
                }
            }, null);
        }

        /** A change of the node; connection events are not (a reconnect wakes everyone, {@link #reconnected()}). */
        @Override
        public void process(WatchedEvent event) {
            if (event.getType() != Event.EventType.None
                    && event.getType() != Event.EventType.PersistentWatchRemoved && !closed.get()) {
                subscribers.fire(path, null);
            }
        }

        /** Removes the watch locally at once (the server forgets it on its own). */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            live.remove(this);
            ZooKeeper zk = on;
            if (zk != null) {
                remove(zk);
            }
        }

        private void remove(ZooKeeper zk) {
            try {
                zk.removeWatches(path, this, WatcherType.Any, true, (rc, p, ctx) -> { }, null);
            } catch (RuntimeException e) {
                // a closed handle: its watches are gone with it
            }
        }
    }
}
