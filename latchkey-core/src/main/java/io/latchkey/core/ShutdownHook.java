package io.latchkey.core;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one JVM shutdown hook of every client in this class loader: a thread named {@value #THREAD_NAME}, added to
 * the runtime when the first client registers and removed when the last one unregisters, so that a JVM that exits
 * normally (end of {@code main}, {@code System.exit}, SIGTERM) closes its open clients and with that releases their
 * locks instead of leaving them to expire with their lease. A client registers on its first primitive and
 * unregisters when it closes; a client closed before the JVM exits (by the application or a framework) is not in
 * the set any more, so the hook does nothing for it.
 *
 * <p>The hook starts every client's close before it waits for any, so the releases of all clients go out at once;
 * then it waits for each client's answers until that client's operation timeout, counted from the hook's start, has
 * passed, and closes its backend. JVM shutdown hooks run concurrently with each other, so a framework that
 * closes its clients in its own order (the Spring Boot starter) turns the hook off with
 * {@link io.latchkey.ClientOptions.Builder#closeOnShutdown(boolean)}.
 *
 * <p>The set and the hook thread are guarded by one {@link ReentrantLock}, never held while a client closes.
 */
final class ShutdownHook {
    private static final Logger log = LoggerFactory.getLogger(ShutdownHook.class);

    static final String THREAD_NAME = "latchkey-shutdown";

    private static final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}: the registered clients, in registration order. */
    private static final Set<AbstractLockClient> clients = new LinkedHashSet<>();
    /** Guarded by {@link #lock}: the hook added to the runtime, or {@code null} while no client is registered. */
    private static Thread hook;

    private ShutdownHook() {
    }

    /**
     * Adds {@code client} to the clients the JVM's shutdown closes, adding the hook if it is the first. Returns
     * {@code false} when the JVM is shutting down already (no hook can be added any more).
     */
    static boolean register(AbstractLockClient client) {
        lock.lock();
        try {
            if (!clients.add(client)) {
                return true;
            }
            if (hook == null) {
                Thread t = new Thread(ShutdownHook::closeAll, THREAD_NAME);
                try {
                    Runtime.getRuntime().addShutdownHook(t);
                } catch (IllegalStateException shuttingDown) {
                    clients.remove(client);
                    return false;
                }
                hook = t;
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Removes {@code client}; the hook too if it was the last, unless the JVM is shutting down (then it runs). */
    static void unregister(AbstractLockClient client) {
        lock.lock();
        try {
            if (!clients.remove(client) || !clients.isEmpty() || hook == null || Thread.currentThread() == hook) {
                return;
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
                hook = null;
            } catch (IllegalStateException shuttingDown) {
                // the hook runs now or will: it finds no client left
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether the hook is added to the runtime now; for tests. */
    static boolean isInstalled() {
        lock.lock();
        try {
            return hook != null;
        } finally {
            lock.unlock();
        }
    }

    /** How many clients are registered now; for tests. */
    static int registeredCount() {
        lock.lock();
        try {
            return clients.size();
        } finally {
            lock.unlock();
        }
    }

    private static void closeAll() {
        List<AbstractLockClient> open;
        lock.lock();
        try {
            open = new ArrayList<>(clients);
        } finally {
            lock.unlock();
        }
        if (open.isEmpty()) {
            return;
        }
        log.info("JVM shutdown: closing {} open lock client(s), releasing their locks", open.size());
        long startedAt = System.nanoTime();
        List<java.util.concurrent.CompletableFuture<?>> releases = new ArrayList<>(open.size());
        for (AbstractLockClient c : open) {
            try {
                releases.add(c.beginClose());
            } catch (RuntimeException | Error e) {
                releases.add(null);
                log.warn("closing {} at JVM shutdown failed", c, e);
            }
        }
        for (int i = 0; i < open.size(); i++) {
            AbstractLockClient c = open.get(i);
            if (releases.get(i) == null) {
                continue; // closed meanwhile by someone else, or failed above
            }
            try {
                c.finishClose(releases.get(i), startedAt + c.options().operationTimeout().toNanos());
            } catch (RuntimeException | Error e) {
                log.warn("closing {} at JVM shutdown failed", c, e);
            }
        }
    }
}
