package io.latchkey.redis;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.lang.reflect.Field;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link io.latchkey.LockClient} on Redis (standalone), through Lettuce.
 *
 * <p>Created from a URI by {@link io.latchkey.LockClient#connect(String, ClientOptions)}
 * ({@code redis://[user:password@]host[:port][/db]}, {@code rediss://…} for TLS), or around an application's own
 * Lettuce client with {@link #create(RedisClient, ClientOptions)}; such a client is not shut down by
 * {@link #close()}, which only closes the two connections this class opened on it.
 *
 * <h2>Data and interoperability</h2>
 * A lock named {@code name} is the Redis hash {@code namespace + name} holding {@code <clientId>:<threadId>}
 * (or {@code <clientId>:<leaseId>}) &rarr; hold count with a PEXPIRE lease, and releases are published on
 * {@code redisson_lock__channel:{namespace + name}}: the layout of Redisson's {@code RLock}, so Redisson and
 * Latchkey clients exclude each other on the same name and wake each other's waiters. The fencing token comes from
 * a separate counter key in the same cluster slot, incremented on every free-to-held transition and never reset.
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
 * 512 holds, batches pipelined. A waiter subscribes once (on its first failed attempt) on the client's single
 * pub/sub connection, and re-tries when an unlock message arrives, or at the holder's remaining lease if the
 * message was lost, never by polling in between.
 *
 * <h2>Failures</h2>
 * A server that is down or slower than {@link ClientOptions#operationTimeout()} fails operations with
 * {@link LockUnavailableException} naming {@code host:port} and the operation. Credentials never appear in
 * messages or {@link #toString()}.
 *
 * <h2>Threads</h2>
 * Lettuce's I/O threads (its own, or the application client's) plus one daemon timer thread
 * {@code latchkey-redis-timer-…}, stopped by {@link #close()}.
 */
public final class RedisLockClient extends AbstractLockClient implements LockInspector {

    private static final Logger log = LoggerFactory.getLogger(RedisLockClient.class);
    private static final Set<Capability> CAPABILITIES =
            Set.copyOf(EnumSet.of(Capability.LOCK, Capability.PUSH_WAKEUP, Capability.INSPECT,
                    Capability.READ_WRITE_LOCK, Capability.FAIR_LOCK, Capability.SEMAPHORE,
                    Capability.COUNT_DOWN_LATCH, Capability.PERMIT_EXPIRABLE_SEMAPHORE));

    private final RedisClient redisClient;
    private final boolean ownsClient;
    private final String address;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> pubSubConnection;
    private final ScheduledThreadPoolExecutor scheduler;
    private final UnlockSubscriptions subscriptions;
    private final RedisLockOps lockOps;
    private final RedisSynchronizers synchronizers;
    private final RedisLockInspector inspector;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final RedisConnectionStateListener reconnectListener;

    private RedisLockClient(RedisClient redisClient, boolean ownsClient, RedisURI uri, String address,
                            ClientOptions options, TimeSource time) {
        super("redis", options, time);
        this.redisClient = redisClient;
        this.ownsClient = ownsClient;
        this.address = address;
        this.scheduler = newScheduler(clientId());
        RedisErrors errors = new RedisErrors(address, options.operationTimeout());
        StatefulRedisConnection<String, String> conn = null;
        StatefulRedisPubSubConnection<String, String> pubSub = null;
        try {
            if (uri != null) {
                // Bounded here too: an application's client may have a longer connect timeout than ours.
                conn = await(redisClient.connectAsync(StringCodec.UTF8, uri), options.operationTimeout());
                pubSub = await(redisClient.connectPubSubAsync(StringCodec.UTF8, uri), options.operationTimeout());
            } else {
                conn = redisClient.connect(StringCodec.UTF8);
                pubSub = redisClient.connectPubSub(StringCodec.UTF8);
            }
        } catch (RuntimeException e) {
            closeQuietly(conn, pubSub);
            scheduler.shutdownNow();
            throw errors.map(e, "connect");
        }
        this.connection = conn;
        this.pubSubConnection = pubSub;
        long ownTimeoutNanos = 0;
        if (redisClient.getOptions().getTimeoutOptions().isTimeoutCommands()) {
            conn.setTimeout(options.operationTimeout());
            pubSub.setTimeout(options.operationTimeout());
        } else {
            // An application's client without command timeouts: bound our commands ourselves.
            ownTimeoutNanos = options.operationTimeout().toNanos();
        }
        ScriptExecutor executor = new ScriptExecutor(conn.async(), errors, scheduler, ownTimeoutNanos);
        this.subscriptions = new UnlockSubscriptions(pubSub, executor);
        this.reconnectListener = new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
                if (connection == pubSubConnection) {
                    // Lettuce re-subscribes right after the reconnect; re-check once that is likely done.
                    try {
                        scheduler.schedule(subscriptions::wakeAll, 100, TimeUnit.MILLISECONDS);
                    } catch (java.util.concurrent.RejectedExecutionException e) {
                        // closing
                    }
                }
            }
        };
        redisClient.addListener(reconnectListener);
        this.lockOps = new RedisLockOps(options.namespace(), executor, subscriptions, scheduler,
                options.renewalInterval().toNanos());
        this.synchronizers = new RedisSynchronizers(options, executor, subscriptions, scheduler, address);
        this.inspector = new RedisLockInspector(options.namespace(), conn.async(), errors, options.operationTimeout());
    }

    /**
     * A lock client on an application's Lettuce client (its default URI), with default options. The client stays
     * the application's: {@link #close()} does not shut it down.
     *
     * @throws LockUnavailableException if the server cannot be reached
     */
    public static RedisLockClient create(RedisClient client) {
        return create(client, ClientOptions.defaults());
    }

    /**
     * A lock client on an application's Lettuce client (its default URI). The client stays the application's:
     * {@link #close()} closes only the connections opened here. Commands are bounded by
     * {@code options.operationTimeout()}.
     *
     * @throws LockUnavailableException if the server cannot be reached
     */
    public static RedisLockClient create(RedisClient client, ClientOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        RedisURI uri = defaultUri(client);
        String address = uri != null ? RedisUris.address(uri) : "(the Lettuce client's default URI)";
        return new RedisLockClient(client, false, uri, address, options, TimeSource.SYSTEM);
    }

    /** Used by {@link RedisLockClientProvider}: a client that owns its Lettuce client and resources. */
    static RedisLockClient connect(String uriText, ClientOptions options) {
        Objects.requireNonNull(options, "options");
        RedisURI uri = RedisUris.parse(uriText, options.operationTimeout());
        Duration timeout = options.operationTimeout();
        ClientResources resources = ClientResources.builder()
                // Reconnect quickly after an outage: waiters and the watchdog are waiting for it.
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(io.lettuce.core.ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build());
        try {
            return new RedisLockClient(client, true, uri, RedisUris.address(uri), options, TimeSource.SYSTEM);
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static <T> T await(ConnectionFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new RedisConnectionException("interrupted while connecting", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause()
                    : new RedisConnectionException("could not connect", e.getCause());
        } catch (TimeoutException e) {
            // A connection that completes after all is closed rather than leaked.
            future.whenComplete((c, err) -> {
                if (c instanceof StatefulConnection) {
                    ((StatefulConnection<?, ?>) c).closeAsync();
                }
            });
            throw new RedisConnectionException("no connection within " + timeout, e);
        }
    }

    private static RedisURI defaultUri(RedisClient client) {
        // Lettuce does not expose the client's default URI; it only names the server in our messages.
        try {
            Field field = RedisClient.class.getDeclaredField("redisURI");
            field.setAccessible(true);
            return (RedisURI) field.get(client);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static ScheduledThreadPoolExecutor newScheduler(String clientId) {
        String name = "latchkey-redis-timer-" + clientId.substring(0, 8);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    @Override
    protected RemoteLockOps lockOps() {
        return lockOps;
    }

    /**
     * A semaphore on Redis (see {@link DistributedSemaphore}): the permits are one integer key in the name's hash
     * slot; waiters are woken by pub/sub when permits are released or added, with a bounded re-check.
     */
    @Override
    public DistributedSemaphore semaphore(String name) {
        checkOpen();
        checkName(name);
        return synchronizers.semaphore(name);
    }

    /**
     * A count-down latch on Redis (see {@link DistributedCountDownLatch}): the count is one integer key in the
     * name's hash slot; reaching zero wakes every waiter of every client by one pub/sub message.
     */
    @Override
    public DistributedCountDownLatch countDownLatch(String name) {
        checkOpen();
        checkName(name);
        return synchronizers.countDownLatch(name);
    }

    /**
     * A permit-expirable semaphore on Redis (see {@link PermitExpirableSemaphore}): each leased permit id is scored
     * by its expiry in server time, so a crashed holder's permit returns on the server's clock.
     */
    @Override
    public PermitExpirableSemaphore permitExpirableSemaphore(String name) {
        checkOpen();
        checkName(name);
        return synchronizers.permitExpirableSemaphore(name);
    }

    /**
     * A spin lock: the same reentrant lock as {@link #lock(String)} (same keys, so both exclude each other, and
     * Redisson's locks too), but a waiter never subscribes to pub/sub; it attempts again after an exponential
     * backoff with jitter (4 ms doubling up to 128 ms, each wait drawn from [d/2, d], never past the holder's
     * remaining lease or the caller's deadline). For deployments where pub/sub is unavailable or too costly.
     * Leases, watchdog renewal, fencing tokens, interruption and loss signals are as for {@link #lock(String)}.
     * Spin locks run on a second lock engine of this client (its own watchdog thread
     * {@code latchkey-redis-spin-watchdog-…}, started on first use, stopped by {@link #close()}).
     *
     * @throws IllegalArgumentException if the name is empty, longer than 512 characters or has control characters
     * @throws IllegalStateException if the client is closed
     */
    public io.latchkey.DistributedLock spinLock(String name) {
        checkOpen();
        checkName(name);
        return synchronizers.spinLock(name, lockOps, time());
    }

    /**
     * A spin lock ({@link #spinLock(String)}) whose waiter backs off from {@code initialBackoff}, doubling up to
     * {@code maxBackoff} (each wait drawn from [d/2, d], never past the holder's remaining lease or the caller's
     * deadline). Short backoffs take a freed lock sooner and cost the server more attempts. Spin locks of one name
     * exclude each other whatever their backoffs; a client keeps at most 64 distinct backoff pairs.
     *
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
        return synchronizers.spinLock(name, lockOps, time(), initialBackoff.toNanos(), maxBackoff.toNanos());
    }

    private static final Duration MAX_SPIN_BACKOFF = Duration.ofDays(1);

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
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the client is closed
     */
    public io.latchkey.DistributedReadWriteLock readWriteLock(String name, boolean writerPreference) {
        if (writerPreference) {
            return readWriteLock(name);
        }
        return readWriteLock(name, synchronizers.readerPreferenceReadOps(),
                synchronizers.readerPreferenceWriteOps());
    }

    @Override
    protected RemoteLockOps fairLockOps() {
        return synchronizers.fairOps();
    }

    @Override
    protected RemoteLockOps readLockOps() {
        return synchronizers.readOps();
    }

    @Override
    protected RemoteLockOps writeLockOps() {
        return synchronizers.writeOps();
    }

    /** The remote operations, for tests of this module. */
    RedisLockOps redisLockOps() {
        return lockOps;
    }

    RedisSynchronizers synchronizers() {
        return synchronizers;
    }

    UnlockSubscriptions subscriptions() {
        return subscriptions;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    /**
     * The locks of this client's namespace held now whose names match {@code pattern} (see
     * {@link LockInspector#list}): a SCAN of the namespace's hashes, then one pipelined read per page of keys.
     * The fencing token shown is the name's counter, i.e. the token of the latest Latchkey hold.
     */
    @Override
    public List<LockInfo> list(String pattern) {
        checkOpen();
        return inspector.list(pattern);
    }

    /** {@code host:port} of the server. */
    public String address() {
        return address;
    }

    @Override
    protected void closeBackend() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronizers.close();
        redisClient.removeListener(reconnectListener);
        scheduler.shutdownNow();
        closeQuietly(connection, pubSubConnection);
        if (ownsClient) {
            ClientResources resources = redisClient.getResources();
            redisClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private static void closeQuietly(StatefulRedisConnection<?, ?> conn, StatefulRedisPubSubConnection<?, ?> pubSub) {
        for (AutoCloseable c : new AutoCloseable[] {pubSub, conn}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.debug("closing a Redis connection failed", e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "RedisLockClient{redis at " + address + ", clientId=" + clientId() + "}";
    }
}
