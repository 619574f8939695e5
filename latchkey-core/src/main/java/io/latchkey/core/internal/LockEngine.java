package io.latchkey.core.internal;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The local half of every lock of one client: per-name nameStates (local owners and waiters), the watchdog, owner ids,
 * close. {@link io.latchkey.core.AbstractLockClient} delegates to it; nothing else should use it.
 *
 * <h2>Ownership</h2>
 * A thread-owned hold belongs to {@code clientId:threadId} and is reentrant (counted here, never at the server); a
 * lease belongs to its own {@code clientId:lease-N} (N in base 36) and is not. Holds live in their name's {@link NameState} and in the
 * watchdog until released or lost.
 *
 * <h2>What wakes a waiter</h2>
 * Waiters of one name and client wait in one local FIFO; one of them (every one, for a fair lock) is at the backend.
 * It is woken by the backend's push, its re-check, a local release (hand-off, at most {@link #MAX_LOCAL_HAND_OFFS} in a
 * row, then a real release so that other clients' waiters get a chance), its deadline, a cancel or an interrupt, or
 * {@link #close()} (see {@link NameState}, the one waiting machine of locks, semaphores and latches).
 *
 * <h2>Interruption and timeouts</h2>
 * An interrupt or a cancelled future withdraws the waiter; a grant that raced it is given back before the interrupt
 * is reported, so an interrupted acquire holds nothing. A timed wait ends by its deadline plus at most the attempt
 * that was out then (bounded by the operation timeout); a wait never ends without one look at the backend unless its
 * own client holds or waits for the name already. Every timer (renewal tick, fixed-lease expiry, deadlines,
 * re-checks) runs on the one watchdog thread; completions that nest too deep continue on the callback pool.
 *
 * <h2>Memory effects</h2>
 * Actions of a thread before it releases a lock happen-before actions of the thread that acquires it next through
 * this engine (the hand-over goes through the nameState's lock and a completed future), as with
 * {@link java.util.concurrent.locks.Lock}; across clients the backend's round trip orders them.
 *
 * <p>The package-private constructor takes the timer, its clock and the callback executor, so that a deterministic
 * simulation ({@code EngineSimulationTest}) owns all time and scheduling.
 */
public final class LockEngine {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LockEngine.class);

    /** Hand-offs in a row within one client before a real release; see {@link NameState}. */
    public static final int MAX_LOCAL_HAND_OFFS = 16;

    /**
     * Idle nameStates kept for reuse (so that a name locked over and over does not build and drop its local state on
     * every cycle); beyond this many, a nameState that goes idle is dropped at once. Each lives at most two watchdog
     * ticks.
     */
    static final int MAX_IDLE_NAME_STATES = 1024;

    /** The reason a hold ends when its client closes: what {@code onLost} listeners and {@code LockLostException} say. */
    public static final String CLIENT_CLOSED = "client closed";

    final String backendName;
    final String clientId;
    final ClientOptions options;
    final TimeSource time;
    final Events events;
    final Watchdog watchdog;
    /** Where completions continue when they nest too deep on one stack ({@link Trampoline}); threads on demand. */
    final java.util.concurrent.ExecutorService callbacks;
    final long watchdogMillis;
    final ConcurrentHashMap<NameKey, NameState> nameStates = new ConcurrentHashMap<>();
    /** How many nameStates in {@link #nameStates} are idle, kept for reuse. */
    final java.util.concurrent.atomic.AtomicInteger idleNameStates = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * Every lock ops this engine has made a lock view on (a handful: plain, fair, read, write), so that
     * {@link #markLost} finds a grant's nameState by key instead of scanning every hold. Copy on write.
     */
    private volatile RemoteLockOps[] lockOps = new RemoteLockOps[0];
    private final java.util.concurrent.locks.ReentrantLock lockOpsLock = new java.util.concurrent.locks.ReentrantLock();
    /** Watchdog permits of permit-expirable semaphores this client holds, by semaphore and id. */
    private final ConcurrentHashMap<PermitHold.Key, PermitHold> permits = new ConcurrentHashMap<>();
    private final AtomicLong permitIds = new AtomicLong();
    private final AtomicLong leaseIds = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Calls in flight that change the server's state: a close lets them finish before the backend closes. */
    final WritesInFlight writes = new WritesInFlight();
    private volatile java.util.function.Predicate<io.latchkey.core.Grant> certain = g -> true;
    /** One instance, so that {@code computeIfAbsent} on the hot path allocates no capturing lambda. */
    final java.util.function.Function<NameKey, NameState> newNameState = k -> new NameState(this, k);
    /** The clean-ups of attempts whose answer never came. */
    final AttemptCleanUps cleanUps = new AttemptCleanUps(this);
    /** The owner id of each thread, built once per thread instead of concatenated on every lock and unlock. */
    private final ThreadLocal<String> threadOwners = new ThreadLocal<>();

    public LockEngine(String backendName, String clientId, ClientOptions options, TimeSource time) {
        this(backendName, clientId, options, time, null, null, null);
    }

    /**
     * The seam through which a deterministic simulation owns all time and scheduling: {@code timer} runs the
     * watchdog's tick, fixed-lease expiries, deadlines and re-checks on {@code timerClock}; {@code callbacks} runs
     * completions that nest too deep ({@link Trampoline}). With {@code null}s the engine starts its own watchdog
     * thread (on {@link System#nanoTime()}) and callback pool, as the public constructor does.
     */
    LockEngine(String backendName, String clientId, ClientOptions options, TimeSource time,
               java.util.concurrent.ScheduledExecutorService timer, TimeSource timerClock,
               java.util.concurrent.ExecutorService callbacks) {
        this.backendName = Objects.requireNonNull(backendName, "backendName");
        this.clientId = Objects.requireNonNull(clientId, "clientId");
        this.options = Objects.requireNonNull(options, "options");
        this.time = Objects.requireNonNull(time, "time");
        this.events = new Events(options.eventListener(), backendName);
        this.watchdogMillis = options.watchdogTimeout().toMillis();
        String shortId = clientId.length() > 8 ? clientId.substring(0, 8) : clientId;
        this.watchdog = new Watchdog(this, String.format("latchkey-%s-watchdog-%s", backendName, shortId), timer,
                timerClock == null ? TimeSource.SYSTEM : timerClock);
        if (callbacks != null) {
            this.callbacks = callbacks;
            return;
        }
        AtomicLong callbackThreads = new AtomicLong();
        this.callbacks = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, String.format("latchkey-%s-callback-%s-%d", backendName, shortId,
                            callbackThreads.incrementAndGet()));
                    t.setDaemon(true);
                    return t;
                });
    }

    /** A lock view on {@code ops}; checks the name. */
    public DistributedLock lock(RemoteLockOps ops, String name) {
        checkOpen();
        return new EngineLock(this, Objects.requireNonNull(ops, "ops"), checkName(name), EngineLock.Role.PLAIN);
    }

    /** A read-write lock whose read half runs on {@code readOps} (shared) and write half on {@code writeOps}. */
    public DistributedReadWriteLock readWriteLock(RemoteLockOps readOps, RemoteLockOps writeOps, String name) {
        checkOpen();
        return new EngineReadWriteLock(this, readOps, writeOps, checkName(name));
    }

    /** A semaphore on {@code ops} ({@link RemoteCountOps#tryTake} and friends); checks the name. */
    public DistributedSemaphore semaphore(RemoteCountOps ops, String name) {
        checkOpen();
        return new EngineSemaphore(this, Objects.requireNonNull(ops, "ops"), checkName(name));
    }

    /** A permit-expirable semaphore on {@code ops} ({@link RemoteCountOps#tryLease} and friends); checks the name. */
    public PermitExpirableSemaphore permitExpirableSemaphore(RemoteCountOps ops, String name) {
        checkOpen();
        return new EnginePermitExpirableSemaphore(this, Objects.requireNonNull(ops, "ops"), checkName(name));
    }

    /** A count-down latch on {@code ops} ({@link RemoteCountOps#getCount} and friends); checks the name. */
    public DistributedCountDownLatch countDownLatch(RemoteCountOps ops, String name) {
        checkOpen();
        return new EngineCountDownLatch(this, Objects.requireNonNull(ops, "ops"), checkName(name));
    }

    /**
     * Checks a lock name: 1 to 512 characters, no control characters, well-formed UTF-16 (no lone surrogate).
     *
     * @throws IllegalArgumentException with the reason
     */
    public static String checkName(String name) {
        return Checks.name(name);
    }

    /** {@return the index of the first lone surrogate of {@code s} (UTF-8 makes each one {@code ?}), or -1} */
    public static int loneSurrogate(CharSequence s) {
        return Checks.loneSurrogate(s);
    }

    /**
     * Marks the live hold of {@code grant} (the very instance the backend returned) lost; see
     * {@code AbstractLockClient.grantLost}. Returns whether a held lock was marked lost.
     */
    public boolean markLost(io.latchkey.core.Grant grant, String reason) {
        for (RemoteLockOps ops : lockOps) {
            NameState s = nameStates.get(new NameKey.Lock(ops, grant.name()));
            Hold h = s == null ? null : s.holdOf(grant);
            if (h != null) {
                return h.markLost(reason);
            }
        }
        return false;
    }

    /** Remembers {@code ops} for {@link #markLost}; a lock view calls it when it is made. */
    void registerOps(RemoteLockOps ops) {
        for (RemoteLockOps known : lockOps) {
            if (known == ops) {
                return;
            }
        }
        lockOpsLock.lock();
        try {
            RemoteLockOps[] known = lockOps;
            for (RemoteLockOps k : known) {
                if (k == ops) {
                    return;
                }
            }
            RemoteLockOps[] more = java.util.Arrays.copyOf(known, known.length + 1);
            more[known.length] = ops;
            lockOps = more;
        } finally {
            lockOpsLock.unlock();
        }
    }

    /** Sets the backend's answer to "is this held grant certain now?" ({@code AbstractLockClient.isGrantCertain}). */
    public void certainty(java.util.function.Predicate<io.latchkey.core.Grant> certain) {
        this.certain = Objects.requireNonNull(certain, "certain");
    }

    boolean isCertain(io.latchkey.core.Grant grant) {
        return certain.test(grant);
    }

    public boolean isClosed() {
        return closed.get();
    }

    /**
     * How many lock names have local state now (held, waited for or in flight); for leak tests. Idle nameStates kept
     * for reuse are not counted: see {@link #nameStateCount()}.
     */
    public int localStateCount() {
        return nameStates.size() - idleNameStates.get();
    }

    /** How many per-name nameStates the engine keeps now, idle ones included; for leak tests. */
    public int nameStateCount() {
        return nameStates.size();
    }

    /** Drops the idle nameStates that were idle at the previous call too; the watchdog's tick calls it. */
    void sweepIdleNameStates() {
        if (idleNameStates.get() == 0) {
            return;
        }
        for (NameState s : nameStates.values()) {
            s.sweep(false);
        }
    }

    /** Whether a nameState going idle may be kept: the watchdog runs (it sweeps them) and the bound is not reached. */
    boolean keepIdle() {
        if (closed.get() || !watchdog.isStarted()) {
            return false;
        }
        if (idleNameStates.incrementAndGet() > MAX_IDLE_NAME_STATES) {
            idleNameStates.decrementAndGet();
            return false;
        }
        return true;
    }

    /** How many holds the watchdog renews now; for tests. */
    public int renewedCount() {
        return watchdog.renewedCount();
    }

    /** Runs one renewal round now, on the calling thread; for tests with a manual clock. */
    public void renewNow() {
        watchdog.tick();
    }

    /** {@link #closeAsync()}, waits for its releases (at most the operation timeout), stops the {@link #timer()}. */
    public void close() {
        awaitClose(closeAsync(), System.nanoTime() + options.operationTimeout().toNanos());
        watchdog.stop();
    }

    /** The client's one timer thread, lent to its backend; {@link ClientTimer#stop()} once the backend closed. */
    public ClientTimer timer() {
        return watchdog.timer;
    }

    /**
     * Ends the engine's timers, fails every waiter ({@link LockUnavailableException}), marks every hold lost
     * ({@link #CLIENT_CLOSED}; listeners run once) and, unless {@link ClientOptions#releaseOnClose()} is off, sends
     * their releases and the watchdog permits' at once; the future completes when all answered (at once on a second
     * call). The {@link #timer()} runs on for the backend: the client stops it after {@code closeBackend()}.
     */
    public CompletableFuture<?> closeAsync() {
        if (!closed.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(CloseRelease.Outcome.NONE);
        }
        watchdog.shutdown();
        CompletableFuture<CloseRelease.Outcome> released = CloseRelease.endAll(this, permits.values());
        // completions already handed over still run; the threads end when idle
        callbacks.shutdown();
        return released;
    }

    /**
     * Waits for {@link #closeAsync()}'s releases, then for the state-changing calls still in flight to settle (an
     * unlock racing the close, an attempt whose late grant goes back, the clean-ups they start), all until
     * {@code deadlineNanos}; an interrupt is restored after it.
     */
    public void awaitClose(CompletableFuture<?> releases, long deadlineNanos) {
        CloseRelease.await(this, releases, deadlineNanos);
        writes.settle(backendName, deadlineNanos);
    }

    // ---------------------------------------------------------------------------------------------- internals

    void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("client closed");
        }
    }

    String threadOwner() {
        String owner = threadOwners.get();
        if (owner == null) {
            owner = clientId + ":" + Thread.currentThread().getId();
            threadOwners.set(owner);
        }
        return owner;
    }

    /** A permit id unique across clients: this client's id and a sequence number. */
    String newPermitId() {
        return clientId + "-p" + Long.toString(permitIds.incrementAndGet(), 36);
    }

    /** Starts renewing a watchdog permit; a permit taken while the client closes is released at once. */
    void rememberPermit(PermitHold p) {
        permits.put(p.key, p);
        watchdog.trackPermit(p);
        if (closed.get() && p.end() && options.releaseOnClose()) {
            CloseRelease.releaseAll(this, java.util.List.of(), java.util.List.of(p));
        }
    }

    /** The watchdog permit {@code key} of this client, or {@code null}. */
    PermitHold permit(PermitHold.Key key) {
        return permits.get(key);
    }

    void forgetPermit(PermitHold p) {
        permits.remove(p.key, p);
        watchdog.untrackPermit(p);
    }

    /**
     * A lease's owner id, unique across clients: {@code clientId:lease-N}, N a sequence number in base 36 (like a
     * permit id's). The backend, and the in-memory server, keep this string for as long as the lease is held; base
     * 36 keeps it within 48 characters (a 64-byte array) up to 60 million leases per client, where the decimal form
     * reached 49 at the 100,000th lease and took 8 bytes more per held lease.
     */
    String newLeaseOwner() {
        return clientId + ":lease-" + Long.toString(leaseIds.incrementAndGet(), 36);
    }

    /** The longest the engine waits for one remote operation: the operation timeout plus a small margin. */
    long remoteTimeoutNanos() {
        long op = options.operationTimeout().toNanos();
        return op + Math.max(op / 10, TimeUnit.MILLISECONDS.toNanos(50));
    }

    /** Asks who holds {@code name} ({@link io.latchkey.DistributedLock#holder()}), bounded by the operation timeout. */
    java.util.Optional<io.latchkey.LockHolder> holder(RemoteLockOps ops, String name) {
        checkOpen();
        return java.util.Optional.ofNullable(awaitRemote(callRemote(() -> ops.holder(name)), "holder", name));
    }

    void remember(Hold h) {
        watchdog.track(h);
        if (closed.get() && h.markLost(CLIENT_CLOSED) && options.releaseOnClose()) {
            // granted while the client closed: released like the holds close found
            CloseRelease.releaseAll(this, java.util.List.of(h), java.util.List.of());
        }
    }

    void forget(Hold h) {
        watchdog.untrack(h);
    }

    /** Waits (uninterruptibly, bounded by the operation timeout) for a remote operation's result. */
    public <T> T awaitRemote(CompletableFuture<T> f, String operation, String name) {
        long timeout = remoteTimeoutNanos();
        long deadline = System.nanoTime() + timeout;
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(e.getCause());
                } catch (TimeoutException e) {
                    throw new LockUnavailableException(String.format(
                            "%s of lock '%s' on the %s backend did not complete within %d ms", operation, name,
                            backendName, TimeUnit.NANOSECONDS.toMillis(timeout)));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@code f} as the caller of an asynchronous method sees it: failing with {@link LockUnavailableException} if it
     * does not complete within the operation timeout (the timer runs on the watchdog thread; nothing blocks), and
     * with the backend's failure unwrapped otherwise.
     */
    <T> CompletableFuture<T> boundedRemote(CompletableFuture<T> f, String operation, String name) {
        long timeout = remoteTimeoutNanos();
        CompletableFuture<T> out = new CompletableFuture<>();
        java.util.concurrent.ScheduledFuture<?> timer = watchdog.schedule(() -> out.completeExceptionally(
                new LockUnavailableException(String.format("%s of '%s' on the %s backend did not complete within %d ms",
                        operation, name, backendName, TimeUnit.NANOSECONDS.toMillis(timeout)))), timeout);
        f.whenComplete((v, e) -> {
            if (timer != null) {
                timer.cancel(false);
            }
            if (e != null) {
                out.completeExceptionally(rethrow(unwrap(e)));
            } else {
                out.complete(v);
            }
        });
        return out;
    }

    /** Like {@link #awaitRemote} but never throws: for clean-ups whose outcome does not matter. */
    <T> T awaitQuietly(CompletableFuture<T> f, String operation, String name) {
        try {
            return awaitRemote(f, operation, name);
        } catch (RuntimeException e) {
            return null;
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * An exception from another thread, made throwable here: unavailability gets a fresh exception with this
     * thread's stack (the original as cause); the engine's own exceptions are rethrown as they are.
     */
    static RuntimeException rethrow(Throwable t) {
        t = unwrap(t);
        if (t instanceof LockUnavailableException) {
            return new LockUnavailableException(t.getMessage(), t);
        }
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new LockUnavailableException(String.valueOf(t), t);
    }

    /** A backend operation as a future: one that throws, or returns no future, is a failed future. */
    static <T> CompletableFuture<T> callRemote(Supplier<CompletableFuture<T>> op) {
        try {
            CompletableFuture<T> f = op.get();
            return f != null ? f : CompletableFuture.failedFuture(new IllegalStateException("backend returned no future"));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
