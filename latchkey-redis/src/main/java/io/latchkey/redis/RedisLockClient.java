package io.latchkey.redis;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.Recipes;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A {@link io.latchkey.LockClient} on Redis (standalone, Sentinel or Redis Cluster), through Lettuce.
 *
 * <p>Created from a URI by {@link io.latchkey.LockClient#connect(String, ClientOptions)}
 * ({@code redis://[user:password@]host[:port][/db]}, {@code rediss://…} for TLS,
 * {@code redis-sentinel://[user:password@]host:port[,host:port…]/mastername[/db]} for Sentinel, with query
 * parameters {@code replicaAcks} and {@code replicaAckTimeout} setting {@link RedisOptions} on both;
 * {@code redis-cluster://[user:password@]host[:port][,host[:port]…]} for a cluster's seed nodes), or around an
 * application's own Lettuce client with {@link #create(RedisClient, ClientOptions)},
 * {@link #create(RedisClient, ClientOptions, RedisOptions)} or {@link #create(RedisClusterClient, ClientOptions)};
 * such a client is not shut down by {@link #close()}, which only closes the two connections this class opened
 * on it.
 *
 * <h2>Redis Cluster</h2>
 * Every primitive's keys share one hash slot, so each operation stays one EVALSHA on one master; watchdog
 * renewals are batched per slot; waiters are woken by sharded pub/sub ({@code SSUBSCRIBE}/{@code SPUBLISH}) on
 * Redis 7 or later, by classic pub/sub on older clusters. Replica acknowledgement is not offered on a cluster
 * yet. Details: {@code docs/redis-topologies.md}.
 *
 * <h2>Sentinel</h2>
 * With a Sentinel URI, Lettuce asks the sentinels for the master's address on every (re)connect of both
 * connections. After a failover the old master's connections break (Sentinel disconnects the clients of a demoted
 * master), both reconnect to the promoted replica, the unlock subscriptions are re-established and every waiter
 * re-checks once. Operations in between fail with {@link LockUnavailableException} after the operation timeout;
 * held locks keep renewing if the promoted replica has them. Replication is asynchronous: a lock granted shortly
 * before the master crashed may be missing on the promoted replica, unless {@link RedisOptions} replica
 * acknowledgement is on; fencing tokens still increase (they follow the server's clock, see below). Credentials in the URI are those of the master and replicas;
 * the sentinels are reached without credentials. See {@code docs/redis-topologies.md}.
 *
 * <h2>Data and interoperability</h2>
 * A lock named {@code name} is the Redis hash {@code namespace + name} holding {@code <clientId>:<threadId>}
 * (or {@code <clientId>:<leaseId>}) &rarr; hold count with a PEXPIRE lease, and releases are published on
 * {@code redisson_lock__channel:{namespace + name}}: the layout of Redisson's {@code RLock}, so Redisson and
 * Latchkey clients exclude each other on the same name and wake each other's waiters. A Latchkey hold also keeps
 * its fencing token in the hash (field {@code latchkey:token}), so it goes with the hold, and the id of the attempt
 * that made it (field {@code latchkey:attempt}): an attempt whose answer never came (the operation timeout, a lost
 * connection, a server paused past the timeout that ran it later) is removed by that id, never a later hold of the
 * same owner, right after the server answers again instead of a watchdog timeout later.
 *
 * <h2>Fencing tokens</h2>
 * Every primitive's token is {@code max(last + 1, server time in µs)}, taken inside its acquire script from the
 * server's {@code TIME}; {@code last} is kept in one key per namespace ({@code <namespace>latchkey:tokens}), on a
 * Redis Cluster one per namespace and hash slot. So tokens strictly increase per name (per namespace, in fact)
 * while that key lives, and after a restart without persistence or a failover that lost it they still do as long
 * as the new master's clock is ahead of the last token (the outage lasted longer than the clock skew between the
 * servers). No key stays behind per name: releasing the last hold deletes everything of the name. The argument and
 * its assumptions: {@code docs/fencing.md}.
 *
 * <h2>Synchronizers</h2>
 * Also {@link #fairLock} (FIFO across clients by a server-side sequence; the head alone is woken; a crashed waiter
 * leaves the queue within the waiter heartbeat, min({@code watchdogTimeout}, 5 s)), {@link #readWriteLock} (each
 * read hold leased and renewed on its own; waiting writers hold back new readers unless
 * {@link #readWriteLock(String, boolean) turned off}; write-to-read downgrade),
 * {@link #semaphore}, {@link #permitExpirableSemaphore} (leases expire on the server's clock),
 * {@link #countDownLatch}, and {@link #spinLock} (no pub/sub). Each keeps all its keys in one cluster hash slot
 * ({@code <namespace>{<namespace + name>}:latchkey:<kind>:…}), orders and expires by the server's {@code TIME}
 * (Redis 5 or later), and wakes waiters by pub/sub with a bounded re-check. Layouts:
 * {@code docs/redis-synchronizers.md}.
 *
 * <h2>Round trips</h2>
 * Acquire (uncontended), release, hand-off: one EVALSHA each. Watchdog renewal: one EVALSHA per batch of up to
 * 512 holds, batches pipelined. The client's engine does the waiting: one attempt in flight per name (per waiter
 * for a fair lock); after the first busy answer it subscribes to the name's channel on the client's single pub/sub
 * connection and attempts again when a message arrives, or at the holder's remaining lease (at most 5 s) if the
 * message was lost, never by polling in between.
 *
 * <h2>Failures</h2>
 * A server that is down or slower than {@link ClientOptions#operationTimeout()} fails operations with
 * {@link LockUnavailableException} naming {@code host:port} and the operation. Credentials never appear in
 * messages or {@link #toString()}.
 *
 * <h2>Threads</h2>
 * Lettuce's I/O threads (its own, or the application client's) plus the engine's one daemon timer thread
 * {@code latchkey-redis-watchdog-…} (renewals, deadlines, and this backend's timers, which never block), stopped by
 * {@link #close()}.
 */
public final class RedisLockClient extends AbstractLockClient implements LockInspector {

    private static final Set<Capability> CAPABILITIES =
            Set.copyOf(EnumSet.of(Capability.LOCK, Capability.PUSH_WAKEUP, Capability.INSPECT,
                    Capability.READ_WRITE_LOCK, Capability.FAIR_LOCK, Capability.SEMAPHORE,
                    Capability.COUNT_DOWN_LATCH, Capability.PERMIT_EXPIRABLE_SEMAPHORE,
                    Capability.FENCED_STORE));

    private final String address;
    private final RedisOptions redisOptions;
    private final RedisClientWiring wiring;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Made by {@link RedisLockClientFactory}; {@code connect} opens the two connections. */
    RedisLockClient(AbstractRedisClient redisClient, boolean ownsClient,
                    Function<Duration, RedisConnections> connect, String address, ClientOptions options,
                    RedisOptions redisOptions, TimeSource time) {
        super("redis", options, time);
        this.redisOptions = redisOptions;
        this.address = address;
        this.wiring = new RedisClientWiring(redisClient, ownsClient, connect, address, options, redisOptions,
                clientId(), scheduler());
    }

    /**
     * Creates a lock client on an application's Lettuce client (its default URI), with default options. The client
     * stays the application's: {@link #close()} does not shut it down.
     *
     * @param client the application's Lettuce client; its default URI names the server
     * @return a new lock client, connected, with connections of its own that {@link #close()} closes
     * @throws LockUnavailableException if the server cannot be reached
     */
    public static RedisLockClient create(RedisClient client) {
        return create(client, ClientOptions.defaults());
    }

    /**
     * Creates a lock client on an application's Lettuce client (its default URI). The client stays the
     * application's: {@link #close()} closes only the connections opened here. Commands are bounded by
     * {@code options.operationTimeout()}.
     *
     * @param client the application's Lettuce client; its default URI names the server
     * @param options the lock client's options
     * @return a new lock client, connected
     * @throws LockUnavailableException if the server cannot be reached
     */
    public static RedisLockClient create(RedisClient client, ClientOptions options) {
        return create(client, options, RedisOptions.defaults());
    }

    /**
     * Creates a lock client on an application's Lettuce client (its default URI, which may be a Sentinel URI) with
     * Redis-specific options such as replica acknowledgement. The client stays the application's.
     *
     * @param client the application's Lettuce client; its default URI names the server or the Sentinels
     * @param options the lock client's options
     * @param redisOptions the Redis-specific options
     * @return a new lock client, connected
     * @throws IllegalArgumentException if {@code redisOptions.replicaAckTimeout()} is not shorter than
     *         {@code options.operationTimeout()} while replica acknowledgement is on
     * @throws LockUnavailableException if the server cannot be reached
     */
    public static RedisLockClient create(RedisClient client, ClientOptions options, RedisOptions redisOptions) {
        return RedisLockClientFactory.create(client, options, redisOptions);
    }

    /**
     * Creates a lock client on an application's Lettuce Redis Cluster client, with default options. The client
     * stays the application's: {@link #close()} does not shut it down.
     *
     * @param client the application's Lettuce cluster client; its URIs are the seed nodes
     * @return a new lock client, connected
     * @throws LockUnavailableException if the cluster cannot be reached
     * @see #create(RedisClusterClient, ClientOptions)
     */
    public static RedisLockClient create(RedisClusterClient client) {
        return create(client, ClientOptions.defaults());
    }

    /**
     * Creates a lock client on an application's Lettuce Redis Cluster client. Every primitive works as on a standalone
     * server: each lock's or synchronizer's keys share one hash slot (so each operation is still one EVALSHA, on the
     * slot's master; Lettuce follows MOVED/ASK redirections), watchdog renewals are batched per slot, wake-ups use
     * sharded pub/sub ({@code SSUBSCRIBE}/{@code SPUBLISH}, on the slot's master) when the servers are Redis 7 or later
     * and classic pub/sub otherwise, and {@link #list} scans every master. The client stays the application's:
     * {@link #close()} closes only the two connections opened here. Commands are bounded by
     * {@code options.operationTimeout()}.
     *
     * <p>What a cluster does not change: a lock lives on one master, so a failover that loses the last writes
     * before the replica took over can lose a lock (as on a standalone server with a replica); fencing tokens
     * are the defence. See {@code docs/redis-topologies.md}.
     *
     * @param client the application's Lettuce cluster client; its URIs are the seed nodes
     * @param options the lock client's options
     * @return a new lock client, connected
     * @throws LockUnavailableException if the cluster cannot be reached
     */
    public static RedisLockClient create(RedisClusterClient client, ClientOptions options) {
        return RedisLockClientFactory.create(client, options);
    }

    /** Used by {@link RedisLockClientProvider} and this module's tests: see {@link RedisLockClientFactory#connect}. */
    static RedisLockClient connect(String uriText, ClientOptions options) {
        return RedisLockClientFactory.connect(uriText, options);
    }

    /** See {@link RedisLockClientFactory#connectCluster}. */
    static RedisLockClient connectCluster(String uriText, ClientOptions options, boolean allowSharded) {
        return RedisLockClientFactory.connectCluster(uriText, options, allowSharded);
    }

    /**
     * The remote halves, each with replica acknowledgement when configured ({@link RedisReplicaAckedLockOps}): a
     * semaphore's permits are one integer key in the name's hash slot, waiters woken by pub/sub when permits are
     * released or added ({@link RedisSemaphoreOps}); a latch's count is one integer key, reaching zero wakes every
     * waiter of every client by one pub/sub message ({@link RedisCountDownLatchOps}); each leased permit id of a
     * permit-expirable semaphore is scored by its expiry in server time, so a crashed holder's permit returns on the
     * server's clock ({@link RedisPermitExpirableSemaphoreOps}).
     */
    @Override
    protected Recipes recipes() {
        return Recipes.builder()
                .lock(wiring.ackedLockOps)
                .fairLock(wiring.ackedFairOps)
                .readWriteLock(wiring.ackedReadOps, wiring.ackedWriteOps)
                .semaphore(wiring.synchronizers.semaphoreOps())
                .permitExpirableSemaphore(wiring.synchronizers.permitExpirableSemaphoreOps())
                .countDownLatch(wiring.synchronizers.countDownLatchOps())
                .fencedStore(wiring.fencedStoreOps)
                .build();
    }

    /**
     * A spin lock: the same reentrant lock as {@link #lock(String)} (same keys, so both exclude each other, and
     * Redisson's locks too), but a waiter never subscribes to pub/sub; it attempts again after an exponential
     * backoff with jitter (4 ms doubling up to 128 ms, each wait drawn from [d/2, d], never past the holder's
     * remaining lease or the caller's deadline). For deployments where pub/sub is unavailable or too costly.
     * Leases, watchdog renewal, fencing tokens, interruption and loss signals are as for {@link #lock(String)}.
     * Spin locks run on this client's one engine, like every other lock: waiting is a backoff policy there.
     *
     * @param name the lock's name; the same lock as {@link #lock(String)} of that name
     * @return a view of the spin lock
     * @throws IllegalArgumentException if the name is empty, longer than 512 characters or has control characters
     * @throws IllegalStateException if the client is closed
     */
    public io.latchkey.DistributedLock spinLock(String name) {
        checkOpen();
        checkName(name);
        return lock(name, wiring.synchronizers.spinOps());
    }

    /**
     * A spin lock ({@link #spinLock(String)}) whose waiter backs off from {@code initialBackoff}, doubling up to
     * {@code maxBackoff} (each wait drawn from [d/2, d], never past the holder's remaining lease or the caller's
     * deadline, and at most 5 s, the engine's longest re-check). Short backoffs take a freed lock sooner and cost the
     * server more attempts. Spin locks of one name
     * exclude each other whatever their backoffs; a client keeps at most 64 distinct backoff pairs.
     *
     * @param name the lock's name; the same lock as {@link #lock(String)} of that name
     * @param initialBackoff the first backoff; positive
     * @param maxBackoff the longest backoff; at least {@code initialBackoff}, at most one day
     * @return a view of the spin lock
     * @throws NullPointerException if a duration is {@code null}
     * @throws IllegalArgumentException if the name is invalid, {@code initialBackoff} is not positive,
     *         {@code maxBackoff} is shorter than {@code initialBackoff} or longer than a day, or this would be the
     *         client's 65th distinct backoff pair
     * @throws IllegalStateException if the client is closed
     */
    public io.latchkey.DistributedLock spinLock(String name, Duration initialBackoff, Duration maxBackoff) {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException(String.format("initialBackoff must be positive but was %s",
                    initialBackoff));
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(String.format(
                    "maxBackoff must be at least initialBackoff (%s) but was %s", initialBackoff, maxBackoff));
        }
        if (maxBackoff.compareTo(MAX_SPIN_BACKOFF) > 0) {
            throw new IllegalArgumentException(String.format("maxBackoff must be at most %s but was %s",
                    MAX_SPIN_BACKOFF, maxBackoff));
        }
        checkOpen();
        checkName(name);
        return lock(name, wiring.synchronizers.spinOps(initialBackoff.toNanos(), maxBackoff.toNanos()));
    }

    private static final Duration MAX_SPIN_BACKOFF = Duration.ofDays(1);

    /**
     * Refuses names whose keys would be keys this backend keeps for itself or for another name: a lock key
     * containing {@code :latchkey:} or ending with {@code latchkey:tokens}, or of the form
     * {@code <namespace>{<namespace + other name>}} for a primitive other than a plain lock (see
     * {@code ReservedNames}).
     */
    @Override
    protected void checkNotReserved(String name, String primitive) {
        ReservedNames.check(options().namespace(), name, !primitive.equals("lock"));
    }

    /**
     * A read-write lock with or without writer preference. {@link #readWriteLock(String)} is
     * {@code readWriteLock(name, true)}.
     *
     * <p>With writer preference a writer that waits registers an intent on the server that holds back new readers
     * (readers already holding keep their holds), so a steady stream of readers cannot starve writers; the intent
     * lives one waiter heartbeat unless the waiting writer renews it, and is withdrawn when the writer gives up.
     * Without it (reader preference) readers enter whenever no writer <em>holds</em> the lock, which maximizes read
     * concurrency, and a writer waits until no reader holds: under a steady stream of overlapping readers a writer
     * may wait forever (bound it with {@code tryLock(wait, …)}). Everything else (leases, renewal, reentrancy,
     * downgrade, refused upgrade, fencing) is the same.
     *
     * <p>The preference is a property of the handles, not stored on the server: handles of both kinds on one name
     * exclude each other as usual, but a reader-preference reader does not look at the intents of writer-preference
     * writers. Use one preference per name.
     *
     * @param name the lock's name
     * @param writerPreference {@code true} to hold back new readers while a writer waits, {@code false} for reader
     *        preference
     * @return a view of the read-write lock
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the client is closed
     */
    public io.latchkey.DistributedReadWriteLock readWriteLock(String name, boolean writerPreference) {
        if (writerPreference) {
            return readWriteLock(name);
        }
        return readWriteLock(name, wiring.synchronizers.readerPreferenceReadOps(),
                wiring.synchronizers.readerPreferenceWriteOps());
    }

    /** {@return the Redis-specific options (replica acknowledgement) this client was created with} */
    public RedisOptions redisOptions() {
        return redisOptions;
    }

    /** The remote operations, for tests of this module. */
    RedisLockOps redisLockOps() {
        return wiring.lockOps;
    }

    RedisSynchronizers synchronizers() {
        return wiring.synchronizers;
    }

    PubSubChannels subscriptions() {
        return wiring.channels;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    /**
     * The locks of this client's namespace held now whose names match {@code pattern} (see
     * {@link LockInspector#list}): a SCAN of the namespace's hashes, then one pipelined read per page of keys.
     * The fencing token shown is the hold's (none for a Redisson holder).
     */
    @Override
    public List<LockInfo> list(String pattern) {
        checkOpen();
        return wiring.inspector.list(pattern);
    }

    /**
     * {@return where this client connects, for messages} That is {@code host:port} of the server;
     * {@code master 'name' via sentinels host:port,…} for Sentinel; {@code cluster host:port,host:port…} (the
     * seeds) for a Redis Cluster.
     */
    public String address() {
        return address;
    }

    @Override
    protected void closeBackend() {
        if (closed.compareAndSet(false, true)) {
            wiring.close();
        }
    }

    @Override
    public String toString() {
        return "RedisLockClient{redis at " + address + ", clientId=" + clientId()
                + (redisOptions.replicaAcks() > 0 ? ", replicaAcks=" + redisOptions.replicaAcks() : "") + "}";
    }
}
