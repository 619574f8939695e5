package io.latchkey.core.mem;

import io.latchkey.core.RemoteCountOps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The mem server's lock subscribers by key ({@link MemLockOps#subscribe}), apart from the locks' entries so that a
 * subscription is no lock state. Guarded by the locks' {@link ReentrantLock}: the locks collect a key's subscribers
 * under it ({@link #collect}) and call them after releasing it.
 */
final class MemWatchers {

    private final ReentrantLock lock;
    private final Map<String, List<Runnable>> watchers = new HashMap<>();

    MemWatchers(ReentrantLock lock) {
        this.lock = lock;
    }

    /** Runs {@code changed} after every change of {@code key} that can let a waiter in, until closed. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String key, Runnable changed) {
        lock.lock();
        try {
            watchers.computeIfAbsent(key, k -> new ArrayList<>(2)).add(changed);
        } finally {
            lock.unlock();
        }
        return CompletableFuture.completedFuture(() -> {
            lock.lock();
            try {
                List<Runnable> l = watchers.get(key);
                if (l != null && l.remove(changed) && l.isEmpty()) {
                    watchers.remove(key);
                }
            } finally {
                lock.unlock();
            }
        });
    }

    /** Adds the subscribers of {@code key} to {@code after}; under the lock. */
    void collect(String key, List<Runnable> after) {
        List<Runnable> l = watchers.get(key);
        if (l != null) {
            after.addAll(l);
        }
    }

    /** Adds every subscriber to {@code after} (the server went down); under the lock. */
    void all(List<Runnable> after) {
        for (List<Runnable> l : watchers.values()) {
            after.addAll(l);
        }
    }
}
