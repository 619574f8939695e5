package io.latchkey.zookeeper;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.Recipes;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.latchkey.zookeeper.internal.HeldNodes;
import io.latchkey.zookeeper.internal.ZkFencedStoreOps;
import io.latchkey.zookeeper.internal.ZkLockOps;
import io.latchkey.zookeeper.internal.ZkLockOps.Kind;
import io.latchkey.zookeeper.internal.ZNodeNames;
import io.latchkey.zookeeper.internal.ZkCountDownLatchOps;
import io.latchkey.zookeeper.internal.ZkWatches;
import io.latchkey.zookeeper.internal.ZkPermitExpirableSemaphoreOps;
import io.latchkey.zookeeper.internal.ZkSemaphoreOps;
import io.latchkey.zookeeper.internal.ZkSession;
import io.latchkey.zookeeper.internal.ZkChroot;
import io.latchkey.zookeeper.internal.ZkUri;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * A {@link LockClient} on ZooKeeper, through Apache Curator's framework (connection handling, reconnects) with
 * Latchkey's own recipes.
 *
 * <h2>Layout</h2>
 * Everything lives under {@code /latchkey} (plus {@code /<namespace>} when {@link ClientOptions#namespace()} is set,
 * and below Curator's namespace and the URI's chroot). A lock named {@code n} is the container node
 * {@code /latchkey/locks/<escaped n>} ({@link #lockPath}); each owner, holding or waiting, is one ephemeral
 * sequential child named like Curator's {@code InterProcessMutex} children ({@code _c_<uuid>-lock-<seq>}), so a
 * Curator mutex on the same path and a Latchkey lock exclude each other. A name maps to exactly one znode name
 * (percent-escaped), so no name can reach outside the namespace.
 *
 * <h2>Ownership, waking, fairness</h2>
 * The lowest sequence holds; every waiter watches only its predecessor and is woken by ZooKeeper when that node
 * goes, so waiting puts no load on the server and a release wakes exactly one waiter. The queue is FIFO across
 * clients: {@link #fairLock} and {@link #lock} use the same queue; {@code lock} may in addition pass a held lock
 * directly to another thread of this client (a hand-off, one round trip) instead of going to the back of the queue,
 * and the waiting threads of one client share one node. Each waiting thread or lease of a {@code fairLock}
 * has its own node from the moment it calls {@code lock()}, so waiters are served in that order across clients,
 * including those of the client that holds the lock.
 *
 * <h2>Leases and sessions</h2>
 * Ephemeral nodes live as long as the ZooKeeper session, so the watchdog "renews" a lock by checking that its node
 * still exists (all held locks in one pipelined batch). A fixed lease is enforced by this client, which deletes the
 * node when the lease is over; a crashed client's nodes go when its session times out (for clients created from a
 * URI, the session timeout is {@link ClientOptions#watchdogTimeout()}, within the server's bounds). While the
 * connection is <em>suspended</em> (lost, session not yet expired) the locks are uncertain: they are still ours
 * if the connection comes back in time. When the session <em>expires</em>, every held lock is lost: leases turn
 * invalid, {@code onLost} listeners run and the next {@code unlock} throws {@link io.latchkey.LockLostException}.
 *
 * <h2>Fencing</h2>
 * The fencing token is a zxid at or after the moment the current owner became the owner: the larger of its node's
 * czxid and the lock path's pzxid in the listing that granted it (the pzxid is at or after the deletion of every
 * earlier holder's node), or the mzxid of the hand-off that passed the node to it. ZooKeeper's zxids grow with
 * every transaction of the ensemble, so tokens grow strictly per lock across clients and restarts.
 *
 * <h2>Security</h2>
 * With digest credentials in the URI ({@code zookeeper://user:password@host:port}), every node is created with a
 * creator-only ACL: clients authenticated as someone else can neither take nor delete them. The password never
 * appears in messages or {@code toString}.
 *
 * <p>Clients are thread-safe. {@link #close()} closes the Curator framework only if this class created it.
 */
public final class ZooKeeperLockClient extends AbstractLockClient implements LockInspector {

    static final String ROOT = "/latchkey";

    private final ZkSession session;
    private final boolean owns;
    private final HeldNodes held = new HeldNodes();
    private final ZkFencedStoreOps fencedStoreOps;
    private final String base;
    private final ZkLockOps lockOps;
    private final ZkLockOps fairLockOps;
    private final ZkLockOps readOps;
    private final ZkLockOps writeOps;
    private final ZkInspector inspector;
    private final ZkSemaphoreOps semaphoreOps;
    private final ZkPermitExpirableSemaphoreOps permitOps;
    private final ZkCountDownLatchOps latchOps;

    private ZooKeeperLockClient(CuratorFramework curator, boolean owns, ClientOptions options, List<ACL> acl) {
        super("zookeeper", options, TimeSource.SYSTEM);
        this.owns = owns;
        String ns = options.namespace();
        this.base = ns.isEmpty() ? ROOT : ROOT + "/" + ZNodeNames.escape(ns);
        this.session = new ZkSession(curator, owns, options.operationTimeout(), acl, scheduler());
        this.lockOps = lockOps(n -> full(lockPath(n)), Kind.EXCLUSIVE, false);
        this.fairLockOps = lockOps(n -> full(lockPath(n)), Kind.EXCLUSIVE, true);
        this.readOps = lockOps(n -> full(readWriteLockPath(n)), Kind.READ, false);
        this.writeOps = lockOps(n -> full(readWriteLockPath(n)), Kind.WRITE, false);
        this.inspector = new ZkInspector(session, full(base + "/locks"), lockOps);
        this.fencedStoreOps = new ZkFencedStoreOps(session, held, n -> full(lockPath(n)),
                n -> full(base + "/stores/" + ZNodeNames.escape(n)));
        ZkWatches watches = new ZkWatches(session);
        this.semaphoreOps = new ZkSemaphoreOps(session, watches,
                n -> full(base + "/semaphores/" + ZNodeNames.escape(n)));
        this.permitOps = new ZkPermitExpirableSemaphoreOps(session, watches,
                n -> full(base + "/permits/" + ZNodeNames.escape(n)));
        this.latchOps = new ZkCountDownLatchOps(session, watches, n -> full(base + "/latches/" + ZNodeNames.escape(n)));
    }

    private ZkLockOps lockOps(Function<String, String> pathOf, Kind kind, boolean fair) {
        return new ZkLockOps(session, pathOf, kind, fair, held, this::lost, options().clientName());
    }

    /**
     * Connects to {@code zookeeper://[user:password@]host:port[,host:port…][/chroot]} with default options.
     *
     * @param uri the ensemble's URI (see {@link #connect(String, ClientOptions)})
     * @return a new client that owns its Curator framework and closes it with {@link #close()}
     * @throws IllegalArgumentException if the URI is malformed
     * @throws LockUnavailableException if no server answers within the operation timeout
     */
    public static ZooKeeperLockClient connect(String uri) {
        return connect(uri, ClientOptions.defaults());
    }

    /**
     * Connects to {@code zookeeper://[user:password@]host:port[,host:port…][/chroot]}. The session timeout is the
     * watchdog timeout (bounded by the server to 2–20 ticks).
     *
     * @param uri the ensemble's URI; with a user and password the client authenticates by digest and its nodes
     *        get creator-only ACLs
     * @param options the client's options; the operation timeout also bounds the wait for a connection
     * @return a new client that owns its Curator framework and closes it with {@link #close()}
     * @throws IllegalArgumentException if the URI is malformed
     * @throws LockUnavailableException if no server answers within the operation timeout
     */
    public static ZooKeeperLockClient connect(String uri, ClientOptions options) {
        Objects.requireNonNull(options, "options");
        ZkUri parsed = ZkUri.parse(uri);
        int opMillis = (int) Math.min(Integer.MAX_VALUE, options.operationTimeout().toMillis());
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(parsed.connectString())
                .sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, options.watchdogTimeout().toMillis()))
                .connectionTimeoutMs(opMillis)
                .retryPolicy(new ExponentialBackoffRetry(50, 5, 1000));
        List<ACL> acl = ZooDefs.Ids.OPEN_ACL_UNSAFE;
        if (parsed.hasCredentials()) {
            builder.authorization("digest", parsed.digest());
            acl = ZooDefs.Ids.CREATOR_ALL_ACL;
        }
        CuratorFramework curator = builder.build();
        curator.start();
        try {
            // Curator retries a refused connect until the timeout: after a short first wait, a TCP connect to each
            // server tells "nothing listens" from "slow", so that a wrong port fails at once and says so.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(opMillis);
            int first = Math.min(opMillis, REFUSED_CHECK_AFTER_MILLIS);
            if (!curator.blockUntilConnected(first, TimeUnit.MILLISECONDS)) {
                if (ConnectFailures.refusedEverywhere(parsed.addresses(), Math.max(1, opMillis - first))) {
                    throw new LockUnavailableException(String.format(
                            "cannot connect to ZooKeeper at %s: connection refused (nothing listens there)",
                            parsed.hosts()));
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || !curator.blockUntilConnected((int) left, TimeUnit.MILLISECONDS)) {
                    throw new LockUnavailableException(String.format(
                            "ZooKeeper %s did not accept a connection within %d ms", parsed.connectString(),
                            opMillis));
                }
            }
            ZkChroot.ensure(curator, parsed, deadline);
        } catch (LockUnavailableException e) {
            closeAbandoned(curator); // never connected, or no chroot
            throw e;
        } catch (InterruptedException e) {
            closeAbandoned(curator);
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("interrupted while connecting to ZooKeeper " + parsed.connectString(), e);
        }
        return new ZooKeeperLockClient(curator, true, options, acl);
    }

    /** How long a connect waits before it checks whether anything listens at the servers' addresses. */
    private static final int REFUSED_CHECK_AFTER_MILLIS = 250;

    /**
     * Closes a framework that never connected without making the caller wait: the close waits for a close-session
     * answer, a whole session timeout against a server that accepts and never answers.
     */
    private static void closeAbandoned(CuratorFramework curator) {
        Thread closer = new Thread(curator::close, "latchkey-zookeeper-abandon");
        closer.setDaemon(true);
        closer.start();
    }

    /**
     * Creates a client on an application's own, started Curator framework, with default options. Nodes get open
     * ACLs.
     *
     * @param curator the application's framework, started; {@link #close()} does not close it
     * @return a new client
     */
    public static ZooKeeperLockClient create(CuratorFramework curator) {
        return create(curator, ClientOptions.defaults());
    }

    /**
     * Creates a client on an application's own, started Curator framework; its namespace (if any) is honoured and
     * nodes get open ACLs.
     *
     * @param curator the application's framework, started; {@link #close()} does not close it
     * @param options the client's options; the session timeout stays the framework's own
     * @return a new client
     * @throws NullPointerException if an argument is null
     */
    public static ZooKeeperLockClient create(CuratorFramework curator, ClientOptions options) {
        Objects.requireNonNull(curator, "curator");
        Objects.requireNonNull(options, "options");
        return new ZooKeeperLockClient(curator, false, options, ZooDefs.Ids.OPEN_ACL_UNSAFE);
    }

    /**
     * Tells where the lock (and fair lock) called {@code name} lives, relative to Curator's namespace and the
     * chroot: point a Curator {@code InterProcessMutex} at it to share the lock with Curator clients.
     *
     * @param name the lock's name
     * @return the znode path, relative to Curator's namespace and the chroot
     * @throws IllegalArgumentException if the name is invalid
     */
    public String lockPath(String name) {
        return base + "/locks/" + ZNodeNames.escape(checkName(name));
    }

    /**
     * Tells where the read-write lock called {@code name} lives, laid out like Curator's read-write lock.
     *
     * @param name the lock's name
     * @return the znode path, relative to Curator's namespace and the chroot
     * @throws IllegalArgumentException if the name is invalid
     */
    public String readWriteLockPath(String name) {
        return base + "/rwlocks/" + ZNodeNames.escape(checkName(name));
    }

    private String full(String relative) {
        return session.path(relative);
    }

    private void lost(Grant grant) {
        grantLost(grant, "its ZooKeeper session expired, so its node "
                + grant.backendState(io.latchkey.zookeeper.internal.ZkGrantState.class).path() + " is gone");
    }

    /** In doubt while the connection is suspended (the session may have expired): leases are not valid then. */
    @Override
    protected boolean isGrantCertain(Grant grant) {
        return !session.isSuspended();
    }

    /**
     * The remote halves, each laid out under {@code /latchkey[/<ns>]} as its class tells: {@code ZkLockOps} for the
     * four locks, {@code ZkSemaphoreOps}, {@code ZkPermitExpirableSemaphoreOps}, {@code ZkCountDownLatchOps} and
     * {@code ZkFencedStoreOps}.
     */
    @Override
    protected Recipes recipes() {
        return Recipes.builder().lock(lockOps).fairLock(fairLockOps).readWriteLock(readOps, writeOps)
                .semaphore(semaphoreOps).permitExpirableSemaphore(permitOps).countDownLatch(latchOps)
                .fencedStore(fencedStoreOps).build();
    }

    /**
     * The plain and fair locks of this client's namespace held now (read-write locks are not listed), in three
     * pipelined rounds of reads. The holder is the first node of each queue; its owner is the owner id written in
     * its node (or its session id); waiters are the other nodes of the queue; there is no remaining lease (the
     * session holds the node); the fencing token is shown only where it is known exactly (see
     * {@code ZkInspector}).
     *
     * @throws LockUnavailableException if the ensemble does not answer within the operation timeout
     */
    @Override
    public List<LockInfo> list(String pattern) {
        checkOpen();
        return inspector.list(pattern);
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.LOCK, Capability.FAIR_LOCK, Capability.READ_WRITE_LOCK, Capability.SEMAPHORE,
                Capability.PERMIT_EXPIRABLE_SEMAPHORE, Capability.COUNT_DOWN_LATCH, Capability.PUSH_WAKEUP,
                Capability.INSPECT, Capability.FENCED_STORE);
    }

    /**
     * Closes the session if this client created the framework (ZooKeeper then removes our nodes). On an
     * application's framework the session lives on, so the nodes of held locks and leased permits are deleted here
     * (nothing would end them any more); a plain semaphore's permits are unowned and stay taken, as on every backend.
     */
    @Override
    protected void closeBackend() {
        if (!owns) {
            List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
            for (Grant g : held.all()) {
                deletes.add(lockOps.deleteHeld(g));
            }
            deletes.add(permitOps.deleteHeld().thenApply(v -> true));
            try {
                CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]))
                        .get(options().operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // best effort: they go with the application's session at the latest
            }
        }
        session.close();
    }

    @Override
    public String toString() {
        return "ZooKeeperLockClient{clientId=" + clientId() + ", base=" + base + "}";
    }
}
