package io.latchkey;

import io.latchkey.spi.LockClientProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * A connection to one lock backend, from which named locks and synchronizers are obtained.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect("redis://localhost:6379")) {
 *     DistributedLock lock = client.lock("invoice:2026-11");
 *     lock.lock();
 *     try {
 *         // only one holder across every client of this Redis
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 *
 * <p>Clients are thread-safe and meant to be shared: one per backend per application. Objects returned by the
 * factory methods are cheap views; two calls with the same name return objects that share state.
 *
 * <p>Names are 1 to 512 characters of well-formed UTF-16 (no lone surrogate) without control characters; other
 * names throw {@link IllegalArgumentException} before anything is sent. No name maps onto a key, path or row the
 * library keeps for itself or for another name: ZooKeeper, etcd, SQL and file backends escape or hash names so that
 * this cannot happen; on Redis, where a lock is the key {@code namespace + name} (Redisson's layout), names whose key
 * contains {@code :latchkey:} or ends with {@code latchkey:tokens} are reserved, and so are synchronizer and
 * fenced-store names of the form {@code {<namespace + other name>}} (without braces of their own), which would share
 * the other name's keys; they throw {@link IllegalArgumentException} naming the reserved form. A primitive the backend does not support (see {@link #capabilities()})
 * throws {@link UnsupportedOperationException} naming the backend.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Connects to the backend named by {@code uri} with default options.
     *
     * @param uri the backend's URI, as for {@link #connect(String, ClientOptions)}; not null
     * @return a new client, connected; the caller closes it
     * @throws IllegalArgumentException if no backend on the class path accepts the URI or the URI is malformed
     * @throws LockUnavailableException if the backend cannot be reached
     * @see #connect(String, ClientOptions)
     */
    static LockClient connect(String uri) {
        return connect(uri, ClientOptions.defaults());
    }

    /**
     * Connects to the backend named by {@code uri}: {@code mem://name}, {@code redis://host:port},
     * {@code rediss://…}, {@code redis-sentinel://…}, {@code redis-cluster://…}, {@code zookeeper://…},
     * {@code etcd://…}, {@code file:///directory} or a {@code jdbc:} URL, as far as the matching backend module is on
     * the class path.
     *
     * @param uri the backend's URI; its scheme (compared ignoring case) selects the backend; not null
     * @param options the options of the new client (watchdog timeout, operation timeout, namespace, listener); not
     *        null
     * @return a new client, connected; the caller closes it
     * @throws NullPointerException if {@code uri} or {@code options} is null
     * @throws IllegalArgumentException if no backend on the class path accepts the URI (the message lists the
     *         schemes that are supported) or the URI is malformed
     * @throws LockUnavailableException if the backend cannot be reached
     */
    static LockClient connect(String uri, ClientOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        List<String> known = new ArrayList<>();
        for (LockClientProvider provider : ServiceLoader.load(LockClientProvider.class, LockClient.class.getClassLoader())) {
            for (String prefix : provider.uriPrefixes()) {
                if (uri.regionMatches(true, 0, prefix, 0, prefix.length())) {
                    return provider.create(uri, options);
                }
                known.add(prefix);
            }
        }
        String scheme = uri.contains(":") ? uri.substring(0, uri.indexOf(':') + 1) : uri;
        throw new IllegalArgumentException(String.format(
                "no Latchkey backend on the class path accepts URIs starting with '%s'; supported: %s",
                scheme.length() > 40 ? scheme.substring(0, 40) + "…" : scheme, known.isEmpty() ? "none" : known));
    }

    /**
     * Returns the reentrant lock called {@code name}, owned by the calling thread or by a {@link LockLease}.
     *
     * @param name the lock's name (see the class comment)
     * @return a view of the lock; cheap, and sharing its state with every other view of the same name
     * @throws IllegalArgumentException if the name is invalid, with the reason
     */
    DistributedLock lock(String name);

    /**
     * A reentrant lock granted in the order its waiters started waiting, across clients: first come, first served.
     *
     * <p><b>Order.</b> A waiter's place is fixed when its {@code lock()}, {@code tryLock(time, unit)} or
     * {@code acquire(…)} reaches the backend, which it is sent to at once, even while another thread of the same
     * client holds the lock; the backend's queue alone decides who is next. Threads and leases of the client that
     * holds the lock therefore queue behind earlier waiters of other clients and ahead of later ones, like
     * everyone else: unlike {@link #lock}, a released lock is never passed straight to another waiter of the
     * releasing client, and every waiter is its own remote waiter (no sharing within a JVM). Two calls that
     * start waiting at the same moment in different clients are ordered by the backend. Re-entering a lock the
     * thread already holds is counted locally and does not queue. A single attempt ({@code tryLock()}) does not
     * queue: it succeeds only if the lock is free and nobody waits.
     *
     * <p><b>Leaving the line.</b> A waiter whose wait time runs out, or that is interrupted or cancelled, leaves
     * the queue at once and does not delay the ones behind it. A waiter whose process crashed keeps its place
     * until the backend notices: its ZooKeeper session or etcd lease expires, or (Redis) it misses its waiter
     * heartbeat of min({@link ClientOptions#watchdogTimeout() watchdogTimeout}, 5 s); if it reaches the head of
     * the line before that, the lock stays unavailable for that long, as for a crashed holder. A crashed holder's
     * lock is free after its lease, as for {@link #lock}.
     *
     * <p>Fairness costs throughput under contention within one client (each hand-over is a release and a grant at
     * the backend, not a local hand-off). Whether a backend offers it: {@link Capability#FAIR_LOCK}; otherwise
     * this throws {@link UnsupportedOperationException} naming the backend.
     *
     * @param name the lock's name (see the class comment)
     * @return a view of the fair lock, sharing its state with every other fair-lock view of the same name
     * @throws IllegalArgumentException if the name is invalid, with the reason
     * @throws UnsupportedOperationException if the backend has no {@link Capability#FAIR_LOCK}
     */
    DistributedLock fairLock(String name);

    /**
     * Returns the read-write lock called {@code name}: many readers or one writer.
     *
     * @param name the lock's name (see the class comment)
     * @return a view of the read-write lock, sharing its state with every other view of the same name
     * @throws IllegalArgumentException if the name is invalid, with the reason
     * @throws UnsupportedOperationException if the backend has no {@link Capability#READ_WRITE_LOCK}
     */
    DistributedReadWriteLock readWriteLock(String name);

    /**
     * Returns the counting semaphore called {@code name}.
     *
     * @param name the semaphore's name (see the class comment)
     * @return a view of the semaphore, sharing its state with every other view of the same name
     * @throws IllegalArgumentException if the name is invalid, with the reason
     * @throws UnsupportedOperationException if the backend has no {@link Capability#SEMAPHORE}
     */
    DistributedSemaphore semaphore(String name);

    /**
     * Returns the semaphore called {@code name} whose permits are leased, identified by an id, and expire.
     *
     * @param name the semaphore's name (see the class comment)
     * @return a view of the semaphore, sharing its state with every other view of the same name
     * @throws IllegalArgumentException if the name is invalid, with the reason
     * @throws UnsupportedOperationException if the backend has no {@link Capability#PERMIT_EXPIRABLE_SEMAPHORE}
     */
    PermitExpirableSemaphore permitExpirableSemaphore(String name);

    /**
     * Returns the count-down latch called {@code name}.
     *
     * @param name the latch's name (see the class comment)
     * @return a view of the latch, sharing its state with every other view of the same name
     * @throws IllegalArgumentException if the name is invalid, with the reason
     * @throws UnsupportedOperationException if the backend has no {@link Capability#COUNT_DOWN_LATCH}
     */
    DistributedCountDownLatch countDownLatch(String name);

    /**
     * Returns the leader election called {@code name}, in which this client campaigns as {@link #clientId()}.
     *
     * @param name the election's name
     * @return a view of the election; it campaigns only when asked to
     * @throws IllegalArgumentException if the name is invalid (see the class comment; an election name is at most
     *         200 characters)
     * @throws UnsupportedOperationException if the backend does not support leader election
     * @see #leaderElection(String, String)
     */
    default LeaderElection leaderElection(String name) {
        return leaderElection(name, clientId());
    }

    /**
     * The leader election called {@code name}, in which this client campaigns under {@code candidateId} — the id
     * that {@link LeaderElection#currentLeader()} shows while it leads (a host name, a pod name). Candidate ids need
     * not be unique: terms tell leaderships apart. Elections share nothing with locks of the same name.
     *
     * @param name the election's name (as for locks, at most 200 characters)
     * @param candidateId 1 to 100 characters, no control characters
     * @return a view of the election; it campaigns only when asked to
     * @throws IllegalArgumentException if the name or candidate id is invalid, with the reason
     * @throws UnsupportedOperationException if the backend does not support leader election
     */
    default LeaderElection leaderElection(String name, String candidateId) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support leader election");
    }

    /**
     * Returns the fenced store of the lock called {@code lockName}: keys and values kept in the lock's own server
     * whose writes are applied only while the writer's lease is the lock's current hold (see {@link FencedStore}).
     *
     * @param lockName the name of the lock that guards the store (see the class comment)
     * @return a view of the store, sharing its data with every other view of the same lock name on this server
     * @throws IllegalArgumentException if the name is invalid, with the reason
     * @throws UnsupportedOperationException if the backend has no {@link Capability#FENCED_STORE}
     */
    default FencedStore fencedStore(String lockName) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support fencedStore");
    }

    /**
     * {@return what this backend supports} The factory methods of other primitives throw
     * {@link UnsupportedOperationException} naming the backend.
     */
    Set<Capability> capabilities();

    /** {@return a UUID that identifies this client instance in lock owner ids} Never null; fixed for its life. */
    String clientId();

    /**
     * Releases every hold this client still has, fails its waiters, stops renewals, then closes the connection if
     * the client created it. Idempotent.
     *
     * <p>Each hold still held — thread-owned locks, leases, read and write holds, fair locks, leaderships, watchdog
     * permits of permit-expirable semaphores — is first marked lost with the reason "client closed" (its
     * {@code onLost} and {@code onRevoked} listeners run once), then all of them are released at the server at once,
     * in parallel, within the {@linkplain ClientOptions#operationTimeout() operation timeout} in total; so another
     * process gets a lock at once instead of after its lease. A hold whose release fails or does not answer in time
     * expires with its lease, as after a crash. With {@link ClientOptions.Builder#releaseOnClose(boolean)
     * releaseOnClose(false)} no hold is released: all of them expire with their lease. Every pending acquire fails
     * with {@link LockUnavailableException}; later calls on this client's objects throw {@link IllegalStateException}.
     *
     * <p>Releasing on close is safe: a closed client renews nothing, so each hold would end anyway, only later. A
     * thread still inside its critical section when the client closes holds nothing from then on: its lease is
     * invalid, and its {@code unlock()} or {@code release()} throws {@link LockLostException}, as after any loss.
     * If it still writes to a shared resource, the resource must check the hold's fencing token (or use
     * {@link #fencedStore}): the next holder's token is greater, and the stale write is refused.
     *
     * <p>Unless {@link ClientOptions.Builder#closeOnShutdown(boolean) closeOnShutdown(false)}, a client that has
     * made a lock or synchronizer is also closed by a normal JVM exit (one shared shutdown hook thread,
     * {@code latchkey-shutdown}); closing it yourself first is fine, the hook then finds it closed.
     */
    @Override
    void close();
}
