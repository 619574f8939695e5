package io.latchkey.core.mem;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.ArbitratedLockOps.Kind;
import io.latchkey.core.Recipes;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The in-memory backend: {@code mem://<server>}. Every client connected to the same server name in this JVM shares
 * one in-process lock server, so several clients can contend as if they were separate processes. It implements
 * the full lock contract (fencing, leases with server-side expiry, push wake-ups, loss) without I/O, and is the
 * reference the TCK is checked against.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect("mem://demo")) { ... }
 * }</pre>
 *
 * <p>Server state (locks and fencing counters) lives as long as the JVM; the server starts no thread.
 */
public class MemLockClient extends AbstractLockClient implements LockInspector {

    private static final Set<Capability> CAPABILITIES = Collections.unmodifiableSet(EnumSet.of(Capability.LOCK,
            Capability.FAIR_LOCK, Capability.READ_WRITE_LOCK, Capability.SEMAPHORE,
            Capability.PERMIT_EXPIRABLE_SEMAPHORE, Capability.COUNT_DOWN_LATCH, Capability.PUSH_WAKEUP,
            Capability.INSPECT, Capability.FENCED_STORE));

    private final MemServer server;

    /**
     * Connects to the in-process server {@code serverName}, creating it on first use.
     *
     * @param serverName the server's name, the part after {@code mem://}; clients of one name share locks
     * @param options the client's options
     * @param time the engine's clock (the server keeps its own)
     * @throws NullPointerException if an argument is null
     */
    public MemLockClient(String serverName, ClientOptions options, TimeSource time) {
        super("mem", options, time);
        this.server = MemServer.attach(Objects.requireNonNull(serverName, "serverName"));
    }

    /**
     * Connects to the in-process server {@code serverName} with default options, creating it on first use.
     *
     * @param serverName the server's name; clients of one name share locks
     * @return a new client, which the caller closes
     */
    public static MemLockClient create(String serverName) {
        return new MemLockClient(serverName, ClientOptions.defaults(), TimeSource.SYSTEM);
    }

    /**
     * Connects to the in-process server {@code serverName}, creating it on first use.
     *
     * @param serverName the server's name; clients of one name share locks
     * @param options the client's options
     * @return a new client, which the caller closes
     */
    public static MemLockClient create(String serverName, ClientOptions options) {
        return new MemLockClient(serverName, options, TimeSource.SYSTEM);
    }

    /** {@return the name of the in-process server this client is connected to} */
    public String serverName() {
        return server.name();
    }

    /**
     * Test hook: takes the shared server down ({@code false}: every operation of every client on it fails with
     * {@link io.latchkey.LockUnavailableException} and current waiters are failed) or brings it back. Locks keep
     * expiring on the server's clock meanwhile.
     *
     * @param available {@code false} to take the server down, {@code true} to bring it back
     */
    public void setServerAvailable(boolean available) {
        server.setAvailable(available);
    }

    @Override
    protected Recipes recipes() {
        String namespace = options().namespace();
        String client = options().clientName();
        return Recipes.builder()
                .lock(new MemLockOps(server, namespace, Kind.LOCK, client))
                .fairLock(new MemLockOps(server, namespace, Kind.FAIR, client))
                .readWriteLock(new MemLockOps(server, namespace, Kind.READ, client),
                        new MemLockOps(server, namespace, Kind.WRITE, client))
                .semaphore(new MemCountOps(server, "semaphore", namespace))
                .permitExpirableSemaphore(new MemCountOps(server, "permits", namespace))
                .countDownLatch(new MemCountOps(server, "latch", namespace))
                .fencedStore(new MemFencedStoreOps(server, namespace)) // checked under the server's lock
                .build();
    }

    /**
     * The locks (plain, fair, read and write: they share one key space per name) of this client's namespace held
     * on the in-process server now, one entry per hold: owner, the server's fencing token, the remaining lease on
     * the server's clock and how many owners queue for the name. The hold count is 1: reentrant holds are counted
     * by the holder's client. Semaphores and latches are not listed.
     *
     * @throws LockUnavailableException if the server was taken down with {@link #setServerAvailable}
     */
    @Override
    public List<LockInfo> list(String pattern) {
        checkOpen();
        List<LockInfo> result = server.read(() -> {
            if (!server.isAvailable()) {
                throw server.unavailable("inspect");
            }
            return server.locks.holds(options().namespace() + '\u0000', false);
        });
        result.removeIf(info -> !LockInspector.matches(pattern, info.name()));
        result.sort(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::owner));
        return result;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    protected void closeBackend() {
        // the server outlives its clients: its state lives as long as the JVM, and it has no thread to stop
    }
}
