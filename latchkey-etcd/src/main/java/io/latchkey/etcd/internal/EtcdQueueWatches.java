package io.latchkey.etcd.internal;

import io.latchkey.core.RemoteCountOps;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * One watch of the deletions under a lock's prefix per client, shared by the lock kinds that queue there (the plain
 * and the fair lock of a name, the read and the write half of a read-write lock): each kind's subscription is a
 * listener of it, told only of the deletions it cares about. The watch starts with the first listener and closes with
 * the last.
 *
 * <p>Thread-safe; the map is guarded by a lock that is never held during I/O or while a listener runs.
 */
final class EtcdQueueWatches {

    /** A subscriber: which deleted keys concern it, and what to tell it. */
    private record Listener(Predicate<String> wakes, Runnable changed) {
    }

    /** The watch of one prefix and its listeners. */
    private static final class Shared {
        final List<Listener> listeners = new CopyOnWriteArrayList<>();
        final CompletableFuture<RemoteCountOps.Subscription> watch = new CompletableFuture<>();

        void deleted(List<String> keys) {
            for (Listener l : listeners) {
                if (keys == null || keys.stream().anyMatch(l.wakes)) {
                    l.changed.run();
                }
            }
        }
    }

    private final EtcdSession session;
    private final ReentrantLock lock = new ReentrantLock();
    // guarded by lock
    private final Map<String, Shared> byPrefix = new HashMap<>();

    EtcdQueueWatches(EtcdSession session) {
        this.session = session;
    }

    /**
     * Tells {@code changed} of every deletion under {@code prefix} that {@code wakes} accepts, and whenever the watch
     * broke. Completes once the watch takes effect.
     */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String prefix, Predicate<String> wakes,
                                                             Runnable changed) {
        Listener listener = new Listener(wakes, changed);
        Shared shared;
        boolean start;
        lock.lock();
        try {
            shared = byPrefix.get(prefix);
            start = shared == null;
            if (start) {
                shared = new Shared();
                byPrefix.put(prefix, shared);
            }
            shared.listeners.add(listener);
        } finally {
            lock.unlock();
        }
        Shared s = shared;
        if (start) {
            EtcdChanges.deletions(session, prefix, s::deleted).whenComplete((watch, e) -> {
                if (e != null) {
                    forget(prefix, s);
                    s.watch.completeExceptionally(e);
                } else {
                    s.watch.complete(watch);
                }
            });
        }
        return s.watch.thenApply(watch -> () -> unsubscribe(prefix, s, listener));
    }

    private void forget(String prefix, Shared s) {
        lock.lock();
        try {
            byPrefix.remove(prefix, s);
        } finally {
            lock.unlock();
        }
    }

    private void unsubscribe(String prefix, Shared s, Listener listener) {
        boolean last;
        lock.lock();
        try {
            last = s.listeners.remove(listener) && s.listeners.isEmpty() && byPrefix.remove(prefix, s);
        } finally {
            lock.unlock();
        }
        if (last) {
            s.watch.join().close(); // complete: a subscription is handed out only once its watch took effect
        }
    }
}
