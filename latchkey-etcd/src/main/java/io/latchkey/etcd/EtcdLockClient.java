package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.Recipes;
import io.latchkey.core.TimeSource;
import io.latchkey.etcd.internal.EtcdCountDownLatchOps;
import io.latchkey.etcd.internal.EtcdFencedStoreOps;
import io.latchkey.etcd.internal.EtcdHandshakeProbe;
import io.latchkey.etcd.internal.EtcdInspector;
import io.latchkey.etcd.internal.EtcdKeys;
import io.latchkey.etcd.internal.EtcdLockOps;
import io.latchkey.etcd.internal.EtcdLockOps.Kind;
import io.latchkey.etcd.internal.EtcdPermitExpirableSemaphoreOps;
import io.latchkey.etcd.internal.EtcdSemaphoreOps;
import io.latchkey.etcd.internal.EtcdSession;
import io.latchkey.etcd.internal.EtcdUri;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A {@link LockClient} on etcd (v3 API, through jetcd): {@link #lock}, {@link #fairLock} and
 * {@link #readWriteLock}, {@link #semaphore}, {@link #permitExpirableSemaphore} and {@link #countDownLatch}.
 *
 * <h2>Layout</h2>
 * A lock named {@code n} is the key prefix {@code latchkey/[<namespace>/]locks/<escaped n>/} ({@link #lockPrefix});
 * each owner, holding or waiting, is one key below it ({@code <client id>-<sequence>}) whose value is the owner id.
 * Names are percent-escaped ({@code %}, {@code /}), so no name reaches outside its prefix or its namespace.
 *
 * <h2>Ownership and waking</h2>
 * The key with the lowest create revision under the prefix holds. A waiter watches only the deletion of the key just
 * before its own, so a release wakes exactly one waiter and waiting puts no load on the server; a re-check every 10 s,
 * and whenever a keep-alive fails, is the fallback. Waiters are served in the order their keys were created (FIFO
 * across clients). {@link #lock} and {@link #fairLock} share the queue, so they exclude each other on one name. For
 * {@link #lock} the waiting threads of one client share one key per name, and a held lock may pass straight to
 * another waiting thread of this client (one write, the lock never free in between); a {@link #fairLock} does
 * neither: each waiting thread or lease puts its own key when it calls {@code lock()}.
 *
 * <h2>Read-write locks</h2>
 * A read-write lock named {@code n} is one queue under {@code latchkey/[<namespace>/]rw/<escaped n>/}
 * ({@link #readWritePrefix}): each reader puts {@code read-<client id>-<sequence>}, each writer
 * {@code write-<client id>-<sequence>}. A writer holds when its key is the lowest; a reader holds when no writer's key
 * is older than its own and waits on the deletion of the last such writer, so readers share, a queued writer keeps
 * later readers out (no writer starvation), and readers queued behind one writer get in together when it leaves. A
 * read asked for by the owner of the write lock (a downgrade) is granted at once with a {@code down-} key that keeps
 * every writer out until released; an upgrade is refused with {@link IllegalMonitorStateException} instead of
 * deadlocking. Every read hold has its own key, lease handling and token.
 *
 * <h2>Leases</h2>
 * Each client has one etcd lease, with {@link ClientOptions#watchdogTimeout()} rounded up to whole seconds as TTL;
 * its watchdog holds and waiting keys are on it. The watchdog renews it (a keep-alive every third of the watchdog
 * timeout, with a read of every held key); when it cannot, or etcd reports the lease or a key gone, the holds are
 * lost: leases turn invalid, {@code onLost} listeners run, and the next {@code unlock} throws
 * {@link io.latchkey.LockLostException}. A fixed-lease hold gets an etcd lease of its own, rounded <em>up</em> to
 * whole seconds (the server raises a TTL to its minimum, about 2 s), and this client ends it on time: at the exact
 * end the hold is marked lost and its key deleted. A crashed holder's lock is free once its etcd lease runs out.
 *
 * <h2>Fencing</h2>
 * The fencing token is an etcd revision: the create revision of the holder's key when it held at once, else that of
 * the read that found every earlier key gone, or of the hand-off write. etcd's revision never goes back, and each of
 * these comes after the previous holder's token, so tokens grow strictly per name across clients and restarts.
 *
 * <h2>Inspection</h2>
 * {@link #list} shows, from one range read of the namespace, every lock holder and read hold with its owner, token
 * and the remaining TTL of its etcd lease, every held permit likewise, and the state of semaphores and armed latches.
 * A holder granted from the queue writes its token into its key's value ({@code token=<n>} on its own line), as no
 * other client can derive it from the key's revisions.
 *
 * <h2>Semaphores and latches</h2>
 * Waiting, deadlines, interruption and renewal are the engine's; etcd is asked only for single attempts and watches
 * (waiters put no keys). A semaphore {@code n} is the key {@code latchkey/[<namespace>/]semaphores/<escaped n>} holding
 * its free permits (each take also writes a record under {@code semaphore-takes/<escaped n>/}, so that a take whose
 * answer was lost can be given back once); a permit-expirable semaphore is the prefix
 * {@code latchkey/[<namespace>/]permits/<escaped n>/} with a {@code total} key and one {@code held/<permit id>} key
 * per permit on an etcd lease (watchdog permits on the client's lease, renewed with its locks); a latch is the key
 * {@code latchkey/[<namespace>/]latches/<escaped n>} holding its count while armed. Each changes only by
 * compare-and-set transactions on mod revisions.
 *
 * <p>Clients are thread-safe. {@link #close()} revokes the client's lease (its keys go at once) and closes the jetcd
 * client only if this class created it. Passwords never appear in messages or {@code toString}.
 */
public final class EtcdLockClient extends AbstractLockClient implements LockInspector {

    static final String ROOT = "latchkey/";

    /**
     * grpc-netty logs one INFO line to stderr on its first connection: its logger is set to WARNING unless the
     * application gave it a level; held here, as java.util.logging keeps loggers only weakly.
     */
    private static final java.util.logging.Logger GRPC_TCP_METRICS = quiet("io.grpc.netty.TcpMetrics");

    private final EtcdSession session;
    private final String base;
    private final EtcdSemaphoreOps semaphoreOps;
    private final EtcdInspector inspector;
    private final Recipes recipes;

    private EtcdLockClient(Client client, boolean owns, String endpoints, ClientOptions options) {
        super("etcd", options, TimeSource.SYSTEM);
        String ns = options.namespace();
        this.base = ns.isEmpty() ? ROOT : ROOT + EtcdKeys.escape(ns) + "/";
        this.session = new EtcdSession(client, owns, endpoints, options.operationTimeout(), options.watchdogTimeout(),
                scheduler(), options.clientName());
        // plain and fair lock: the same queue, so both exclude each other on one name
        EtcdLockOps lockOps = new EtcdLockOps(session, this::lockPrefix, clientId(), this::grantLost, Kind.EXCLUSIVE);
        EtcdLockOps fairOps = new EtcdLockOps(session, this::lockPrefix, clientId(), this::grantLost, Kind.FAIR);
        EtcdLockOps readOps = new EtcdLockOps(session, this::readWritePrefix, clientId(), this::grantLost, Kind.READ);
        EtcdLockOps writeOps = new EtcdLockOps(session, this::readWritePrefix, clientId(), this::grantLost, Kind.WRITE);
        readOps.downgradesFrom(writeOps);
        this.semaphoreOps = new EtcdSemaphoreOps(session, under("semaphores/", ""), under("semaphore-takes/", "/"),
                clientId());
        this.inspector = new EtcdInspector(session, base, List.of(lockOps, fairOps));
        this.recipes = Recipes.builder().lock(lockOps).fairLock(fairOps).readWriteLock(readOps, writeOps)
                .semaphore(semaphoreOps)
                .permitExpirableSemaphore(new EtcdPermitExpirableSemaphoreOps(session, under("permits/", "/")))
                .countDownLatch(new EtcdCountDownLatchOps(session, under("latches/", "")))
                .fencedStore(new EtcdFencedStoreOps(session, List.of(lockOps, fairOps), under("stores/", "/")))
                .build();
    }

    /** The key (or prefix) of a synchronizer of one kind by name: {@code <base><folder><escaped name><end>}. */
    private Function<String, String> under(String folder, String end) {
        return name -> base + folder + EtcdKeys.escape(name) + end;
    }

    /**
     * Connects to {@code etcd://[user:password@]host:port[,host:port…]} with default options.
     *
     * @param uri the members' URI, {@code etcd://} or {@code etcds://} (see {@link #connect(String, ClientOptions)})
     * @return a new client that owns its jetcd client and closes it with {@link #close()}
     * @throws IllegalArgumentException if the URI is malformed
     * @throws LockUnavailableException if no member answers within the operation timeout
     */
    public static EtcdLockClient connect(String uri) {
        return connect(uri, ClientOptions.defaults());
    }

    /**
     * Connects to {@code etcd://[user:password@]host:port[,host:port…]}, or over TLS to
     * {@code etcds://[user:password@]host:port[,host:port…][?ca=<PEM file>][&cert=<PEM file>&key=<PKCS#8 PEM file>]}
     * (the members' certificates checked against {@code ca}, else the JVM's trust store, hostnames included;
     * {@code cert} and {@code key} are the client's certificate for members that ask for one), checking within the
     * operation timeout that a member answers. When TLS is why none answered (an untrusted certificate, a client
     * certificate missing or refused, {@code etcd://} against a member that speaks TLS), the exception says which.
     *
     * @param uri the members' URI; its password never appears in exception messages
     * @param options the client's options; the operation timeout also bounds the connection check
     * @return a new client that owns its jetcd client and closes it with {@link #close()}
     * @throws IllegalArgumentException if the URI is malformed, or names a TLS file that is missing or not PEM
     * @throws LockUnavailableException if no member answers within the operation timeout
     */
    public static EtcdLockClient connect(String uri, ClientOptions options) {
        Objects.requireNonNull(options, "options");
        EtcdUri parsed = EtcdUri.parse(uri);
        ClientBuilder builder = Client.builder().endpoints(parsed.endpoints().toArray(new String[0]))
                .connectTimeout(options.operationTimeout());
        if (parsed.hasCredentials()) {
            builder.user(ByteSequence.from(parsed.user(), StandardCharsets.UTF_8))
                    .password(ByteSequence.from(parsed.password(), StandardCharsets.UTF_8));
        }
        if (parsed.tls()) {
            builder.sslContext(parsed.sslContext());
        }
        String endpoints = String.join(",", parsed.endpoints());
        Client client = builder.build();
        long millis = options.operationTimeout().toMillis();
        // jetcd retries a failed TLS handshake until the deadline and reports only the timeout: the last part of the
        // operation timeout is kept for a probe that says why (EtcdHandshakeProbe), so connect still answers in time
        long probeMillis = Math.min(500, millis / 4);
        try {
            // A cheap read proves the endpoint (and the credentials) before the client is handed out.
            client.getKVClient().get(ByteSequence.from(ROOT, StandardCharsets.UTF_8))
                    .get(millis - probeMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("interrupted while connecting to etcd " + endpoints, e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            client.close();
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw connectFailure(endpoints, parsed, millis, probeMillis, cause);
        }
        return new EtcdLockClient(client, true, endpoints, options);
    }

    private static java.util.logging.Logger quiet(String name) {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
        if (logger.getLevel() == null) {
            logger.setLevel(java.util.logging.Level.WARNING);
        }
        return logger;
    }

    /** Why the first read failed, in words (never with the password). */
    private static LockUnavailableException connectFailure(String endpoints, EtcdUri uri, long millis,
                                                           long probeMillis, Throwable cause) {
        String status = String.valueOf(cause.getMessage());
        if (status.contains("UNAUTHENTICATED") || status.contains("authentication failed")
                || status.contains("user name is empty") || status.contains("invalid auth token")
                || status.contains("permission denied")) {
            String who = uri.hasCredentials()
                    ? "refused the credentials of user '" + uri.user() + "' (wrong user or password, or no permission)"
                    : "wants credentials (authentication is on): use etcd://user:password@host:port";
            return new LockUnavailableException(String.format("etcd %s %s: %s", endpoints, who, status), cause);
        }
        if (cause instanceof TimeoutException) {
            long probeStart = System.nanoTime();
            if (ConnectFailures.refusedEverywhere(uri.addresses(), Math.max(1, probeMillis / 2))) {
                return new LockUnavailableException(String.format(
                        "cannot connect to etcd %s: connection refused (nothing listens there)", endpoints), cause);
            }
            String why = EtcdHandshakeProbe.diagnose(uri,
                    probeMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - probeStart));
            if (why != null && why.startsWith("not an etcd server")) {
                return new LockUnavailableException(String.format("cannot connect to etcd %s: %s", endpoints, why),
                        cause);
            }
            return new LockUnavailableException(String.format("etcd %s did not answer within %d ms%s", endpoints,
                    millis, why == null ? "" : ": " + why), cause);
        }
        return new LockUnavailableException(String.format("etcd %s could not be reached: %s", endpoints, cause),
                cause);
    }

    /**
     * Creates a client on an application's own jetcd client, with default options.
     *
     * @param client the application's jetcd client, already configured; {@link #close()} does not close it
     * @return a new client; no round trip is made to check the members
     */
    public static EtcdLockClient create(Client client) {
        return create(client, ClientOptions.defaults());
    }

    /**
     * Creates a client on an application's own jetcd client.
     *
     * @param client the application's jetcd client, already configured (its namespace, if any, is honoured);
     *        {@link #close()} does not close it
     * @param options the client's options
     * @return a new client; no round trip is made to check the members
     * @throws NullPointerException if an argument is null
     */
    public static EtcdLockClient create(Client client, ClientOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        return new EtcdLockClient(client, false, "(application client)", options);
    }

    /**
     * Tells under which key prefix the owners of the lock called {@code name} queue, for tools and tests.
     *
     * @param name the lock's name
     * @return the key prefix, ending in {@code /}: {@code latchkey/[<namespace>/]locks/<escaped name>/}
     * @throws IllegalArgumentException if the name is invalid
     */
    public String lockPrefix(String name) {
        return base + "locks/" + EtcdKeys.escape(checkName(name)) + "/";
    }

    /**
     * Tells under which key prefix the readers and writers of the read-write lock called {@code name} queue.
     *
     * @param name the lock's name
     * @return the key prefix, ending in {@code /}: {@code latchkey/[<namespace>/]rw/<escaped name>/}
     * @throws IllegalArgumentException if the name is invalid
     */
    public String readWritePrefix(String name) {
        return base + "rw/" + EtcdKeys.escape(checkName(name)) + "/";
    }

    /** The remote halves, as the class documentation lays them out on etcd's keys. */
    @Override
    protected Recipes recipes() {
        return recipes;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.LOCK, Capability.FAIR_LOCK, Capability.READ_WRITE_LOCK,
                Capability.SEMAPHORE, Capability.PERMIT_EXPIRABLE_SEMAPHORE, Capability.COUNT_DOWN_LATCH,
                Capability.PUSH_WAKEUP, Capability.INSPECT, Capability.FENCED_STORE);
    }

    /**
     * What this client's namespace holds, for names that match {@code pattern}: lock holders and held permits with
     * owner, fencing token, remaining etcd lease TTL and queued waiters, and each semaphore's and armed latch's state.
     * Two rounds: one range read, then the lease TTLs, pipelined.
     *
     * @throws LockUnavailableException if etcd does not answer within the operation timeout
     */
    @Override
    public List<LockInfo> list(String pattern) {
        return inspector.list(pattern);
    }

    @Override
    protected void closeBackend() {
        semaphoreOps.close(options().operationTimeout().toMillis());
        session.close();
    }

    @Override
    public String toString() {
        return "EtcdLockClient{clientId=" + clientId() + ", endpoints=" + session.endpoints() + ", base=" + base + "}";
    }
}
