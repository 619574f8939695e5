package io.latchkey.zookeeper.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.MaintenanceScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's view of its Curator connection: the current handle for pipelined raw calls (rather than Curator's
 * builders: ZooKeeper answers one session's requests in order, so calls sent back to back cost one round trip, and
 * nothing is sent that we did not ask for), the connection state, the client's scheduler (lent by the engine,
 * never blocked) and the error it reports when the ensemble does not answer.
 */
public final class ZkSession implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ZkSession.class);

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final Duration operationTimeout;
    private final String servers;
    private final String namespace;
    private final List<ACL> acl;
    private final MaintenanceScheduler scheduler;
    private final List<LongConsumer> lostListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> reconnectListeners = new CopyOnWriteArrayList<>();
    private final AtomicReference<CompletableFuture<Void>> connected = new AtomicReference<>(new CompletableFuture<>());
    private final ConnectionStateListener stateListener = this::stateChanged;
    private volatile boolean suspended;
    private volatile long lastSessionId;

    /**
     * @param acl the ACL of every node this client creates
     * @param scheduler the client's scheduler: operation time bounds and retries (its tasks never block)
     */
    public ZkSession(CuratorFramework curator, boolean ownsCurator, Duration operationTimeout, List<ACL> acl,
                     MaintenanceScheduler scheduler) {
        this.acl = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(acl)); // Curator calls contains(null)
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        this.operationTimeout = operationTimeout;
        this.servers = safeServers(curator);
        String ns = curator.getNamespace();
        this.namespace = ns == null || ns.isEmpty() ? null : ns;
        this.scheduler = scheduler;
        curator.getConnectionStateListenable().addListener(stateListener);
        if (curator.getZookeeperClient().isConnected()) {
            connected.get().complete(null);
            lastSessionId = sessionId();
        }
    }

    private static String safeServers(CuratorFramework curator) {
        try {
            String cs = curator.getZookeeperClient().getCurrentConnectionString();
            return cs == null ? "ZooKeeper" : "ZooKeeper " + cs;
        } catch (RuntimeException e) {
            return "ZooKeeper";
        }
    }

    private void stateChanged(CuratorFramework client, ConnectionState state) {
        switch (state) {
            case CONNECTED, RECONNECTED -> {
                suspended = false;
                long now = sessionId();
                long before = lastSessionId;
                lastSessionId = now;
                connected.get().complete(null);
                if (before != 0 && now != before) {
                    // A new session means the old one is gone with its ephemeral nodes, even if Curator never
                    // reported LOST (it can reconnect with a new session after a long partition).
                    fireLost(before);
                }
                reconnectListeners.forEach(l -> quietly(l, "reconnect"));
            }
            case SUSPENDED, LOST -> {
                suspended = true;
                CompletableFuture<Void> current = connected.get();
                if (current.isDone()) {
                    connected.compareAndSet(current, new CompletableFuture<>());
                }
                if (state == ConnectionState.LOST) {
                    long before = lastSessionId;
                    lastSessionId = 0;
                    if (before != 0) {
                        fireLost(before);
                    }
                }
            }
            default -> { }
        }
    }

    private void fireLost(long sessionId) {
        lostListeners.forEach(l -> quietly(() -> l.accept(sessionId), "session-lost"));
    }

    private static void quietly(Runnable listener, String kind) {
        try {
            listener.run();
        } catch (RuntimeException e) {
            log.warn("{} listener failed", kind, e);
        }
    }

    /** The session id of the current handle (0 when it has none yet). */
    public long sessionId() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The current handle; calls on it fail fast with connection loss while disconnected. */
    public ZooKeeper zk() {
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw unavailable("get the connection", e);
        }
    }

    /** The current handle, or {@code null} after failing {@code future} with why there is none. */
    ZooKeeper zkOrFail(CompletableFuture<?> future) {
        try {
            return zk();
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            return null;
        }
    }

    public boolean isSuspended() {
        return suspended;
    }

    /** Completes when the connection is up (at once if it is), or fails after the operation timeout. */
    public CompletableFuture<Void> whenConnected(String operation) {
        CompletableFuture<Void> c = connected.get();
        if (c.isDone()) {
            return c;
        }
        CompletableFuture<Void> whenUp = new CompletableFuture<>();
        c.whenComplete((v, e) -> whenUp.complete(null));
        return bounded(whenUp, operation + " (not connected)");
    }

    /** Runs {@code listener} with the old session id when a session expires (its ephemeral nodes are gone). */
    public void onSessionLost(LongConsumer listener) {
        lostListeners.add(listener);
    }

    /** Runs {@code listener} after every (re)connection, so waiters can re-check what they missed. */
    public void onReconnected(Runnable listener) {
        reconnectListeners.add(listener);
    }

    /** The ACL of every node this client creates: creator-only with digest credentials, open otherwise. */
    public List<ACL> acl() {
        return acl;
    }

    /** {@code relative} below Curator's namespace, as the raw handle needs it. */
    public String path(String relative) {
        return namespace == null ? relative : ZKPaths.fixForNamespace(namespace, relative);
    }

    /** The client's scheduler, shared with the engine's watchdog: tasks on it must not block. */
    public MaintenanceScheduler scheduler() {
        return scheduler;
    }

    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** The error for an operation that could not be done, naming the servers (never credentials). */
    public LockUnavailableException unavailable(String operation, Throwable cause) {
        return io.latchkey.core.ConnectFailures.unavailable("ZooKeeper " + servers, operation, cause);
    }

    /** Fails {@code future} with {@link LockUnavailableException} if it is not done within the operation timeout. */
    public <T> CompletableFuture<T> bounded(CompletableFuture<T> future, String operation) {
        if (future.isDone()) {
            return future;
        }
        var timer = scheduler.schedule(() -> future.completeExceptionally(unavailable(
                operation + " within " + operationTimeout.toMillis() + " ms", null)),
                operationTimeout.toMillis(), TimeUnit.MILLISECONDS);
        future.whenComplete((v, e) -> timer.cancel(false));
        return future;
    }

    @Override
    public void close() {
        curator.getConnectionStateListenable().removeListener(stateListener);
        if (ownsCurator) {
            curator.close();
        }
    }
}
