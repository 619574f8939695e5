package io.latchkey.core;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.FencedStore;
import io.latchkey.LeaderElection;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.internal.election.Elections;
import io.latchkey.core.internal.election.LockLeaderElection;
import io.latchkey.core.internal.LockEngine;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base of every backend's {@link LockClient}: the lock engine. A backend supplies the remote half of each
 * primitive ({@link RemoteLockOps}) and its capabilities; this class supplies everything local — argument
 * checks, owner ids, reentrancy, leases and loss signals, the batched watchdog, one remote waiter per name, the
 * synchronous, interruptible and asynchronous forms of every call.
 *
 * <p>Subclasses hand the engine their remote halves as one value, {@link #recipes()}, and list the primitives in
 * {@link #capabilities()}; a primitive left out throws {@link UnsupportedOperationException} naming the backend.
 * {@link #recipes()} is called once, on first use, and its ops are kept for the client's lifetime (the engine keys
 * its per-name state by the ops instance). It is the only way a backend hands over its ops; a test that wraps one
 * overrides it and wraps what {@code super.recipes()} returns.
 *
 * <h2>Threads</h2>
 * The engine starts one thread per client on its first lease, wait or backend task, named
 * {@code latchkey-<backend>-watchdog-<first 8 characters of the client id>}, a daemon, stopped by {@link #close()}: it
 * renews watchdog leases (one {@link RemoteLockOps#renew} per ops per tick), ends fixed leases (calling the recipe's
 * {@link RemoteLockOps#leaseEnded}), enforces wait deadlines, and runs the backend's maintenance
 * ({@link #scheduler()}); backends start no scheduler thread of their own, only the I/O threads their drivers need
 * (see {@code docs/concurrency.md} for every thread by name).
 * Futures returned by {@link RemoteLockOps} may complete on any thread (including the caller's); the engine then
 * runs its bookkeeping and completes the caller's future on that thread, so backends must not complete futures
 * while holding their own locks.
 */
public abstract class AbstractLockClient implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(AbstractLockClient.class);

    private final String backendName;
    private final ClientOptions options;
    private final TimeSource time;
    private final String clientId = UUID.randomUUID().toString();
    private final LockEngine engine;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Elections elections;
    private final ReentrantLock opsLock = new ReentrantLock();
    /** Guarded by opsLock: {@link #recipes()}, once called. */
    private Recipes recipes;
    /** Whether this client asked {@link ShutdownHook} to close it at JVM exit (on its first primitive). */
    private volatile boolean hooked;

    /**
     * Creates the engine of a client. Its watchdog thread starts on first use, so a client that never locks starts
     * none; {@link #close()} stops it.
     *
     * @param backendName the backend's name in messages and thread names, such as {@code "redis"}
     * @param options the client's options: watchdog timeout, operation timeout, namespace, event listener
     * @param time the clock of local waits and lease bookkeeping, normally {@link TimeSource#SYSTEM}
     */
    protected AbstractLockClient(String backendName, ClientOptions options, TimeSource time) {
        this.backendName = Objects.requireNonNull(backendName, "backendName");
        this.options = Objects.requireNonNull(options, "options");
        this.time = Objects.requireNonNull(time, "time");
        this.engine = new LockEngine(backendName, clientId, options, time);
        engine.certainty(this::isGrantCertain);
        this.elections = new Elections(backendName);
    }

    /**
     * {@return the backend's remote halves, one per primitive it offers} Called once, on first use, under a lock of
     * this client; the ops are kept for the client's lifetime. The default offers none.
     */
    protected Recipes recipes() {
        return Recipes.NONE;
    }

    /** One ops of {@link #recipes()} (asked once), or the unsupported exception naming {@code primitive}. */
    private <T> T recipe(java.util.function.Function<Recipes, T> pick, String primitive) {
        hookOnce();
        opsLock.lock();
        try {
            if (recipes == null) {
                recipes = Objects.requireNonNull(recipes(), "recipes() returned null");
            }
            T ops = pick.apply(recipes);
            if (ops == null) {
                throw unsupported(primitive);
            }
            return ops;
        } finally {
            opsLock.unlock();
        }
    }

    /**
     * Registers this client with the JVM's one shutdown hook on its first primitive, unless its options say not to
     * ({@link ClientOptions#closeOnShutdown()}); a client that never makes a lock is never registered. A close that
     * raced the registration unregisters it again.
     */
    private void hookOnce() {
        if (hooked || !options.closeOnShutdown()) {
            return;
        }
        hooked = true;
        if (ShutdownHook.register(this) && closed.get()) {
            ShutdownHook.unregister(this);
        }
    }

    /**
     * Tells the engine that the backend learned, without being asked, that {@code grant} is no longer held (a
     * ZooKeeper session expired, say): the hold turns lost as if the watchdog had found it gone — its lease turns
     * invalid, {@code onLost} listeners run once, the owner's next unlock/release throws
     * {@link io.latchkey.LockLostException}. Does nothing for a grant that is no longer held (released, handed
     * off or already lost).
     *
     * @param grant the very instance the backend's {@link RemoteLockOps} returned for the hold
     * @param reason why the hold is gone, in a few words; it becomes part of the {@code LockLostException}'s message
     * @return whether a held lock was marked lost
     */
    protected final boolean grantLost(Grant grant, String reason) {
        return engine.markLost(grant, reason);
    }

    /**
     * Tells whether a held grant is certain right now; the default is {@code true}. A backend whose holds can be in
     * doubt without being lost overrides it (ZooKeeper while its connection is suspended: the session, and with it
     * the lock, may still be alive): {@link io.latchkey.LockLease#isValid()} then reports {@code false} until the
     * doubt clears. Called on the caller's thread of {@code isValid}; must be fast and must not block.
     *
     * @param grant a grant that the backend returned and that the engine still counts as held
     * @return {@code false} while the hold is in doubt
     */
    protected boolean isGrantCertain(Grant grant) {
        return true;
    }

    /**
     * Releases the backend's connections; called once by {@link #close()} after the engine stopped. The
     * {@link #scheduler()} still runs until it returns.
     */
    protected abstract void closeBackend();

    /**
     * {@return the client's one scheduler, for the backend's maintenance} Its tasks must not block: they share the
     * thread that renews every lease (see {@link MaintenanceScheduler}). It stops after {@link #closeBackend()}.
     */
    protected final MaintenanceScheduler scheduler() {
        return engine.timer();
    }

    /**
     * {@return a new exception for a primitive this backend does not offer} Its message names the backend, the
     * primitive and the capabilities. The caller throws it.
     *
     * @param primitive the factory method's name, such as {@code "fairLock"}
     */
    protected final UnsupportedOperationException unsupported(String primitive) {
        return new UnsupportedOperationException(
                String.format("the %s backend does not support %s (capabilities: %s)", backendName, primitive,
                        capabilities()));
    }

    /** Throws {@link IllegalStateException} once the client is closed; for backends' own primitives. */
    protected final void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("client closed");
        }
    }

    /** {@return whether {@link #close()} was called} */
    protected final boolean isClosed() {
        return closed.get();
    }

    /**
     * Checks a lock or synchronizer name (1 to 512 characters, no control characters); for backends' own
     * primitives.
     *
     * @param name the name to check
     * @return {@code name}, unchanged
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException with the reason
     */
    protected static String checkName(String name) {
        return LockEngine.checkName(name);
    }

    /**
     * Refuses a name that this backend would map onto a key, path or row it uses itself (a token counter, another
     * primitive's keys); called by every factory of this class after {@link #checkName}, before anything is sent.
     * The default accepts every name: override it in a backend whose mapping is not collision-free by construction.
     *
     * @param name a name that passed {@link #checkName}
     * @param primitive the factory's name: {@code "lock"} (also spin locks and other variants of a plain lock),
     *        {@code "fairLock"}, {@code "readWriteLock"}, {@code "semaphore"}, {@code "permitExpirableSemaphore"},
     *        {@code "countDownLatch"} or {@code "fencedStore"}
     * @throws IllegalArgumentException naming the reserved form
     */
    protected void checkNotReserved(String name, String primitive) {
    }

    /** {@return the backend's name in messages and thread names, such as {@code "redis"}} */
    public final String backendName() {
        return backendName;
    }

    /** {@return the options this client was created with} */
    public final ClientOptions options() {
        return options;
    }

    /**
     * {@return the clock of this client's local waits and lease bookkeeping} Protected: its type is the engine's, which
     * users of the backend modules cannot name; {@link #nanoTime()} reads it.
     */
    protected final TimeSource time() {
        return time;
    }

    /** {@return now on the clock of this client's local waits and lease bookkeeping, in nanoseconds} */
    public final long nanoTime() {
        return time.nanoTime();
    }

    @Override
    public final String clientId() {
        return clientId;
    }

    /** The engine; package-private for the core's tests. */
    final LockEngine engine() {
        return engine;
    }

    @Override
    public DistributedLock lock(String name) {
        checkOpen();
        checkName(name);
        checkNotReserved(name, "lock");
        return engine.lock(recipe(Recipes::lock, "lock"), name);
    }

    @Override
    public DistributedLock fairLock(String name) {
        checkOpen();
        checkName(name);
        checkNotReserved(name, "fairLock");
        return engine.lock(recipe(Recipes::fairLock, "fairLock"), name);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        checkOpen();
        checkName(name);
        checkNotReserved(name, "readWriteLock");
        RemoteLockOps read = recipe(Recipes::readLock, "readWriteLock");
        RemoteLockOps write = recipe(Recipes::writeLock, "readWriteLock");
        return engine.readWriteLock(read, write, name);
    }

    /**
     * A lock on a variant of a primitive that the backend offers beyond the standard factories (a spin lock with its
     * own backoff, say), run by this client's engine: same watchdog, leases, loss signals and waiter sharing as
     * {@link #lock(String)}. The engine keys its per-name state by the ops instance, so a backend passes one
     * instance per variant, kept for the client's lifetime (a new instance per call would split the waiters of a
     * name).
     *
     * @param name the lock's name
     * @param ops the variant's remote half, one instance per variant for the client's lifetime
     * @return a view of the lock, sharing its state with every other view of the same name and ops
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the client is closed
     */
    protected final DistributedLock lock(String name, RemoteLockOps ops) {
        checkOpen();
        checkName(name);
        hookOnce();
        checkNotReserved(name, "lock");
        return engine.lock(Objects.requireNonNull(ops, "ops"), name);
    }

    /**
     * A read-write lock on a variant pair of ops (see {@link #lock(String, RemoteLockOps)} and
     * {@link Recipes.Builder#readWriteLock} for what the pair must do), run by this client's engine.
     *
     * @param name the lock's name
     * @param read the remote half of the read lock; {@link RemoteLockOps#shared()} returns {@code true}
     * @param write the remote half of the write lock
     * @return a view of the read-write lock, sharing its state with every other view of the same name and ops
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the client is closed
     */
    protected final DistributedReadWriteLock readWriteLock(String name, RemoteLockOps read, RemoteLockOps write) {
        checkOpen();
        checkName(name);
        hookOnce();
        checkNotReserved(name, "readWriteLock");
        return engine.readWriteLock(Objects.requireNonNull(read, "read"), Objects.requireNonNull(write, "write"),
                name);
    }

    /**
     * An election built on this client's locks (see {@link LockLeaderElection}); every backend gets it. Observers'
     * {@link LeaderElection#currentLeader()} needs the client to be a {@link io.latchkey.spi.LockInspector}.
     */
    @Override
    public LeaderElection leaderElection(String name, String candidateId) {
        checkOpen();
        return new LockLeaderElection(this, elections, name, candidateId);
    }

    /**
     * A semaphore on the {@linkplain Recipes.Builder#semaphore semaphore ops} of {@link #recipes()}: the engine
     * waits, the backend only tries. Unsupported unless the backend offers those ops.
     */
    @Override
    public DistributedSemaphore semaphore(String name) {
        checkOpen();
        checkNotReserved(checkName(name), "semaphore");
        return engine.semaphore(recipe(Recipes::semaphore, "semaphore"), name);
    }

    /**
     * A permit-expirable semaphore on the backend's {@link Recipes.Builder#permitExpirableSemaphore} ops; see
     * {@link #semaphore}.
     */
    @Override
    public PermitExpirableSemaphore permitExpirableSemaphore(String name) {
        checkOpen();
        checkNotReserved(checkName(name), "permitExpirableSemaphore");
        return engine.permitExpirableSemaphore(
                recipe(Recipes::permitExpirableSemaphore, "permitExpirableSemaphore"), name);
    }

    /** A count-down latch on the backend's {@link Recipes.Builder#countDownLatch} ops; see {@link #semaphore}. */
    @Override
    public DistributedCountDownLatch countDownLatch(String name) {
        checkOpen();
        checkNotReserved(checkName(name), "countDownLatch");
        return engine.countDownLatch(recipe(Recipes::countDownLatch, "countDownLatch"), name);
    }

    /**
     * A fenced store on the backend's {@link Recipes.Builder#fencedStore} ops; unsupported unless the backend offers
     * them. Its blocking forms wait for the server like {@link DistributedLock#isLocked()}: at most the operation
     * timeout, not interruptibly (the interrupt flag is kept).
     */
    @Override
    public FencedStore fencedStore(String lockName) {
        checkOpen();
        checkNotReserved(checkName(lockName), "fencedStore");
        return new EngineFencedStore(backendName, lockName, recipe(Recipes::fencedStore, "fencedStore"), engine);
    }

    @Override
    public abstract Set<Capability> capabilities();

    /**
     * Closes this client's running candidacies ({@link LeaderElection#start}; each resigns its leadership, so the
     * next candidate takes over at once), stops the watchdog thread, fails every pending acquire with
     * {@link io.latchkey.LockUnavailableException}, marks every held lock lost with the reason "client closed"
     * (listeners run once) and releases them all at once, within the operation timeout in total (unless
     * {@link ClientOptions#releaseOnClose()} is off: then they expire with their lease), then calls
     * {@link #closeBackend()} and leaves the JVM's shutdown hook. Idempotent; see {@link LockClient#close()}.
     */
    @Override
    public void close() {
        java.util.concurrent.CompletableFuture<?> releases = beginClose();
        if (releases != null) {
            finishClose(releases, System.nanoTime() + options.operationTimeout().toNanos());
        }
    }

    /**
     * The first half of {@link #close()}: resigns candidacies, fails waiters, marks holds lost and sends their
     * releases; {@code null} if the client was closed already. {@link ShutdownHook} starts every client's close this
     * way before it waits for any, so that the releases of all clients go out at once.
     */
    final java.util.concurrent.CompletableFuture<?> beginClose() {
        if (!closed.compareAndSet(false, true)) {
            return null;
        }
        try {
            elections.close();
            return engine.closeAsync();
        } catch (RuntimeException | Error e) {
            endClose();
            throw e;
        }
    }

    /** The second half of {@link #close()}: waits for the releases until {@code deadlineNanos}, closes the backend. */
    final void finishClose(java.util.concurrent.CompletableFuture<?> releases, long deadlineNanos) {
        try {
            engine.awaitClose(releases, deadlineNanos);
        } finally {
            endClose();
        }
    }

    private void endClose() {
        try {
            closeBackend();
        } catch (RuntimeException e) {
            log.warn("closing the {} backend failed", backendName, e);
        } finally {
            engine.timer().stop();
            if (hooked) {
                ShutdownHook.unregister(this);
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{backend=" + backendName + ", clientId=" + clientId + "}";
    }
}
