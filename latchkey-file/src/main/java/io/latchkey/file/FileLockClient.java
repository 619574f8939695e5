package io.latchkey.file;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.ArbitratedLockOps.Kind;
import io.latchkey.core.Recipes;
import io.latchkey.core.TimeSource;
import io.latchkey.core.CountKind;
import io.latchkey.file.internal.FileCountOps;
import io.latchkey.file.internal.FileLockOps;
import io.latchkey.file.internal.FileNames;
import io.latchkey.file.internal.FileUri;
import io.latchkey.file.internal.LockDirectory;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link LockClient} on a local directory: {@code LockClient.connect("file:///var/lock/myapp")}. Locks exclude
 * each other between the threads, clients and processes of one host (and across hosts only on a shared file system
 * whose POSIX record locks work across hosts: see the module README). No server; nothing to install.
 *
 * <h2>Layout</h2>
 * A held lock is one file {@code lk-<SHA-256 of namespace and name>.lock} in the directory ({@link #lockFile}),
 * locked by the holding process with an OS file lock ({@link java.nio.channels.FileChannel#tryLock}): exclusive for
 * {@link #lock}, {@link #fairLock} and write locks, shared for read locks. The file's text names the lock, its
 * holders (owner, token, lease end) and the fair lock's queue, for {@code inspect}. The file is deleted when the last
 * hold ends, so the directory holds one file per held name plus {@code latchkey.state} (the token counter): nothing
 * per name ever used. The name is hashed, so no name reaches outside the directory, however hostile.
 *
 * <p>A semaphore, permit-expirable semaphore or count-down latch is one state file, {@code lk-<same hash>.semaphore},
 * {@code .permits} or {@code .latch} ({@link #stateFile}): its count, and for permits one lease line per held permit,
 * replaced whole (written beside it, renamed over it) by each operation inside the directory section (an exclusive OS
 * lock on {@code latchkey.state}, held for a few system calls, never while anyone waits). A semaphore's file stays
 * once set (its count is state, as on every backend); a latch's goes with the count-down that reaches zero; waiters
 * write nothing.
 *
 * <h2>Crashes, leases, waking</h2>
 * The kernel releases a process's file locks when it dies (SIGKILL included): its locks are free for others at once
 * (waiters notice within about 200 ms). Leases are kept by the holding process: a fixed lease, or a watchdog lease
 * that stops being renewed, ends on time and frees the file's OS lock. The engine waits; a lock answers single
 * attempts. A waiter is woken by a release in its own JVM at once, by a release in another process through the
 * directory's watch service, and re-checks every 20–200 ms while another process holds the lock as the fallback. Threads of one JVM share one waiter per name and client; all clients of one JVM on one
 * directory share its file handles and two threads ({@code latchkey-file-<hash>}, {@code latchkey-file-watch-<hash>}),
 * stopped when the last of them closes.
 *
 * <h2>Fencing</h2>
 * Tokens come from one counter for the whole directory, {@code max(last + 1, wall clock in µs)}, kept in
 * {@code latchkey.state}: strictly increasing per name across clients, processes and restarts; across a power loss
 * too (a durable ceiling, forced to disk about once a minute, and the kernel's boot id); still increasing if the
 * state file is lost, unless the clock stepped back. A permit of a permit-expirable semaphore gets its token from the
 * same counter.
 *
 * <h2>Counted primitives: waking, leases, crashes, memory effects</h2>
 * The engine waits; a change of a state file wakes waiters in this JVM at once and in other processes through the
 * watch service, and the engine re-checks every second as the fallback. A semaphore's permits are unowned: a holder
 * that crashes keeps them taken. A permit of a permit-expirable semaphore is a lease line with an end on the wall
 * clock ({@link System#currentTimeMillis()}, shared by every process of the host; the lock files' lease ends use
 * it too): it is dropped by whichever process reads the file after that end, so a fixed-lease permit returns
 * {@code leaseMillis} after it was taken and a watchdog permit ({@code acquire()}, renewed with this client's
 * watchdog) one watchdog timeout after its last renewal — also when its process was SIGKILLed; waiters of other
 * processes are woken at that end by a timer armed from the lease they read. A wall clock stepped forward ends leases
 * early, one stepped back ends them late. A latch's count has no owner and no lease. Changes of one directory are
 * applied in one order (the directory section) and read from the shared page cache, so what a process did before a
 * release or count-down is visible to a process that then observes it, for data on this host (the
 * {@link java.util.concurrent.Semaphore} and {@link java.util.concurrent.CountDownLatch} guarantee); a power loss
 * can lose the last changes of a state file (it is not forced to disk; tokens are).
 *
 * <h2>Primitives</h2>
 * {@link #lock}, {@link #fairLock} (FIFO across processes: tickets in the lock file), {@link #readWriteLock}
 * (downgrade yes, upgrade refused), {@link #semaphore}, {@link #permitExpirableSemaphore} (fixed and watchdog
 * permits), {@link #countDownLatch} and {@link LockInspector inspect}. {@link
 * io.latchkey.DistributedLock#forceUnlock()} ends another process's hold only at that process's next watchdog
 * renewal (an OS lock cannot be broken from outside); this JVM's holds end at once.
 *
 * <p>Clients are thread-safe; {@link #close()} marks this client's holds lost (they end with their lease).
 */
public final class FileLockClient extends AbstractLockClient implements LockInspector {

    private static final Set<Capability> CAPABILITIES = Collections.unmodifiableSet(EnumSet.of(Capability.LOCK,
            Capability.FAIR_LOCK, Capability.READ_WRITE_LOCK, Capability.SEMAPHORE,
            Capability.PERMIT_EXPIRABLE_SEMAPHORE, Capability.COUNT_DOWN_LATCH, Capability.PUSH_WAKEUP,
            Capability.INSPECT, Capability.FENCED_STORE));

    private final LockDirectory directory;

    private FileLockClient(Path dir, ClientOptions options) {
        super("file", options, TimeSource.SYSTEM);
        this.directory = LockDirectory.attach(dir);
    }

    /**
     * Connects to {@code file:///absolute/dir} (also {@code file:/absolute/dir}, {@code file://localhost/…});
     * the directory is created if missing.
     *
     * @param uri the lock directory's URI
     * @param options the client's options
     * @return a new client on the directory, which the caller closes
     * @throws IllegalArgumentException if the URI is malformed or names a remote host
     * @throws LockUnavailableException if the directory cannot be created, read, written or watched
     */
    public static FileLockClient connect(String uri, ClientOptions options) {
        return create(FileUri.parse(uri), options);
    }

    /**
     * Connects as {@link #connect(String, ClientOptions)} does, with default options.
     *
     * @param uri the lock directory's URI, {@code file:///absolute/dir}
     * @return a new client on the directory, which the caller closes
     * @throws IllegalArgumentException if the URI is malformed or names a remote host
     * @throws LockUnavailableException if the directory cannot be created, read, written or watched
     */
    public static FileLockClient connect(String uri) {
        return connect(uri, ClientOptions.defaults());
    }

    /**
     * Creates a client on {@code directory}, which is created if missing.
     *
     * @param directory the lock directory; a relative path is resolved against the working directory
     * @param options the client's options
     * @return a new client on the directory, which the caller closes
     * @throws NullPointerException if an argument is null
     * @throws LockUnavailableException if the directory cannot be created, read, written or watched
     */
    public static FileLockClient create(Path directory, ClientOptions options) {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(options, "options");
        return new FileLockClient(directory.toAbsolutePath(), options);
    }

    /**
     * Creates a client on {@code directory}, which is created if missing, with default options.
     *
     * @param directory the lock directory; a relative path is resolved against the working directory
     * @return a new client on the directory, which the caller closes
     * @throws LockUnavailableException if the directory cannot be created, read, written or watched
     */
    public static FileLockClient create(Path directory) {
        return create(directory, ClientOptions.defaults());
    }

    /** {@return the lock directory, as its real path} */
    public Path directory() {
        return directory.path();
    }

    /**
     * The file that exists while the lock called {@code name} (of this client's namespace) is held, for operators
     * ({@code cat} shows holders and the fair queue). Do not open it from a process that uses the directory: when a
     * process closes any descriptor of a file, the kernel drops every POSIX lock that process holds on it.
     *
     * @param name the lock's name
     * @return the lock file's path in the lock directory; the file itself may not exist
     * @throws IllegalArgumentException if the name is invalid
     */
    public Path lockFile(String name) {
        return directory.path().resolve(FileNames.lockFile(options().namespace(), checkName(name)));
    }

    /**
     * The state file of the semaphore ({@code lk-<hash>.semaphore}), permit-expirable semaphore
     * ({@code lk-<hash>.permits}) or latch ({@code lk-<hash>.latch}) called {@code name}, for operators: {@code cat}
     * shows its count and leases. Unlike a lock file it may be read from any process (it carries no OS lock); do not
     * write it.
     *
     * @param kind {@code "semaphore"}, {@code "permits"} or {@code "latch"}
     * @param name the synchronizer's name
     * @return the state file's path in the lock directory; the file itself may not exist
     * @throws IllegalArgumentException if the kind is none of the three or the name is invalid
     */
    public Path stateFile(String kind, String name) {
        CountKind k = CountKind.ofLabel(Objects.requireNonNull(kind, "kind"));
        if (k == null) {
            throw new IllegalArgumentException(String.format(
                    "kind must be semaphore, permits or latch but was '%s'", kind));
        }
        return directory.path().resolve(FileNames.countFile(options().namespace(), checkName(name), k));
    }

    @Override
    protected Recipes recipes() {
        String ns = options().namespace();
        String client = options().clientName();
        return Recipes.builder()
                .lock(new FileLockOps(directory, ns, Kind.LOCK, this::grantLost, client))
                .fairLock(new FileLockOps(directory, ns, Kind.FAIR, this::grantLost, client))
                .readWriteLock(new FileLockOps(directory, ns, Kind.READ, this::grantLost, client),
                        new FileLockOps(directory, ns, Kind.WRITE, this::grantLost, client))
                .semaphore(new FileCountOps(directory, ns, CountKind.SEMAPHORE))
                .permitExpirableSemaphore(new FileCountOps(directory, ns, CountKind.PERMITS))
                .countDownLatch(new FileCountOps(directory, ns, CountKind.LATCH))
                .fencedStore(new io.latchkey.file.internal.FileFencedStoreOps(directory, ns))
                .build();
    }

    /**
     * The locks of this client's namespace held now by any process on this directory, one entry per hold (plain,
     * fair, read and write), with owner, fencing token and the lease left; read from the lock files (this JVM's
     * holds from memory). Lock files left by crashed processes are deleted on the way. Waiters are not counted. Also
     * its synchronizers, from their state files: one {@code "permit"} row per held permit (owner the permit id,
     * token, lease left; detail {@code "1 of 2 permits available"}), {@code "permit-semaphore"} for a permit-expirable
     * semaphore without held permits, {@code "semaphore"} ({@code "3 permits available"}) and {@code "latch"}
     * ({@code "count 2"}), the last three with owner {@link LockInfo#NO_OWNER}.
     *
     * @throws LockUnavailableException if the directory cannot be read within the operation timeout
     */
    @Override
    public List<LockInfo> list(String pattern) {
        checkOpen();
        long millis = options().operationTimeout().toMillis();
        List<LockInfo> result;
        try {
            result = directory.list(options().namespace()).get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("interrupted while listing " + directory.path(), e);
        } catch (ExecutionException e) {
            throw new LockUnavailableException(String.format("listing %s failed: %s", directory.path(),
                    e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new LockUnavailableException(String.format("listing %s took longer than %d ms",
                    directory.path(), millis), e);
        }
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
        directory.detach();
    }

    @Override
    public String toString() {
        return "FileLockClient{clientId=" + clientId() + ", directory=" + directory.path() + "}";
    }
}
