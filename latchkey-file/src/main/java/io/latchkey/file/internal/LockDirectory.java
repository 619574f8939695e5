package io.latchkey.file.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.file.internal.LockEntry.Hold;
import io.latchkey.file.internal.LockEntry.Waiter;
import io.latchkey.spi.LockInfo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lock directory as this JVM sees it: the "server" of the file backend. Every client of this JVM on the same
 * directory shares one instance ({@link #attach}), because OS file locks belong to the process: two channels of one
 * JVM on one file would throw {@link java.nio.channels.OverlappingFileLockException}, and closing either would drop
 * the other's lock (POSIX). So this JVM opens each lock file at most once, arbitrates between its own clients in
 * memory (as {@code mem://} does), and holds one OS lock per file — exclusive for a plain, fair or write hold,
 * shared for read holds — while any of its clients holds the name.
 *
 * <h2>Threads</h2>
 * All state is confined to one thread, {@code latchkey-file-<8 hex of the directory>}, which runs every operation,
 * timer and file access (a few system calls each). The exception is renewal: it extends a hold's lease end
 * (compare-and-set, see {@link LockEntry.Hold}) on the engine's watchdog thread, so that a renewal never waits behind
 * slow file I/O, and leaves the rewrite of the lease end in the file to this thread. A second thread,
 * {@code latchkey-file-watch-<…>}, blocks in {@link java.nio.file.WatchService#take()} and posts the directory's
 * change events to the first. Both are daemons, started by the first {@link #attach} and stopped by the last
 * {@link #detach()} (the last client's {@code close()}).
 *
 * <h2>Waiting</h2>
 * A waiter of this JVM is woken at once by a release in this JVM. For a release in another process: that process
 * deletes or rewrites the lock file, and the watch event wakes the waiter, which retries {@code tryLock}; as the
 * fallback (a SIGKILLed holder changes no file: the kernel just drops its lock; watch services that poll, as on
 * macOS) the waiter re-checks after 20 ms, doubling to at most {@value #MAX_RECHECK_MILLIS} ms, so a dead holder's
 * lock is taken over within about 200 ms. Nothing blocks in {@code FileChannel.lock()} except the short directory
 * section ({@link DirectorySection}).
 *
 * <h2>Leases</h2>
 * This JVM ends its own holds when their lease runs out (fixed leases, and watchdog leases that were not renewed),
 * releasing the OS lock for others; renewal extends the lease and rewrites its end in the file. A process that dies
 * loses its OS locks at once (the kernel releases them). A process that is alive but frozen (SIGSTOP, a debugger)
 * keeps its OS locks: nobody else can break them.
 */
public final class LockDirectory {
    private static final Logger log = LoggerFactory.getLogger(LockDirectory.class);

    /**
     * The byte whose OS lock is the hold: 1 GiB into the file, far past its text, so that the text stays readable
     * where locks are mandatory (Windows), and below 2^31 for NFS lock managers with 32-bit offsets.
     */
    static final long LOCK_POSITION = 1L << 30;
    static final long MIN_RECHECK_MILLIS = 20;
    static final long MAX_RECHECK_MILLIS = 200;
    /** A fair waiter's wait line not refreshed for this long belongs to a dead or frozen process and is ignored. */
    static final long STALE_TICKET_MILLIS = 3_000;
    static final long TICKET_REFRESH_MILLIS = 500;

    private static final ReentrantLock REGISTRY_LOCK = new ReentrantLock();
    private static final Map<Path, LockDirectory> REGISTRY = new HashMap<>();

    private final Path dir;
    private final Path stateFile;
    private final String label;
    /** Tags this JVM's lines in lock files: {@code <pid>-<8 random hex>}. */
    private final String process;
    private final ScheduledThreadPoolExecutor actor;
    /** The actor's thread, once started (the executor never replaces it: its tasks do not throw). */
    private volatile Thread actorThread;
    private final DirectoryWatcher watcher;
    /** The counted primitives' state files and their wake-ups. */
    private final CountFiles counts;
    // guarded by REGISTRY_LOCK
    private int refs;
    private boolean closing;
    /** Completes once the last client's close has stopped this instance. */
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    // confined to the actor thread
    private final Map<String, LockEntry> entries = new HashMap<>();
    /** Every live hold of this JVM by {@link #holdKey}: renewals find them here without a trip to the actor. */
    private final ConcurrentHashMap<String, Hold> live = new ConcurrentHashMap<>();
    private boolean stopped;

    private LockDirectory(Path dir) throws IOException {
        this.dir = dir;
        this.stateFile = dir.resolve(FileNames.STATE_FILE);
        this.label = FileNames.lockFile("", dir.toString()).substring(FileNames.PREFIX.length(),
                FileNames.PREFIX.length() + 8);
        this.process = ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.actor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "latchkey-file-" + label);
            t.setDaemon(true);
            actorThread = t;
            return t;
        });
        actor.setRemoveOnCancelPolicy(true);
        actor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.counts = new CountFiles(dir, actor);
        DirectoryWatcher w;
        try {
            w = new DirectoryWatcher(dir, "latchkey-file-watch-" + label, this::onFileEvent, this::onOverflow);
        } catch (IOException | RuntimeException e) {
            actor.shutdownNow();
            throw e;
        }
        this.watcher = w;
        // Lock files left by processes that crashed while holding are deleted (if nobody holds or queues), and
        // temporary files of state files that a crashed process wrote but never renamed.
        submit("sweep", (s, after) -> {
            sweep(s);
            return null;
        });
    }

    /**
     * The JVM's instance for {@code dir} (created, with the directory, on first use).
     *
     * @throws LockUnavailableException if the directory cannot be created or read
     */
    public static LockDirectory attach(Path dir) {
        Path real;
        try {
            Files.createDirectories(dir);
            real = dir.toRealPath();
        } catch (IOException e) {
            throw new LockUnavailableException(String.format("lock directory %s cannot be created or read: %s", dir,
                    e), e);
        }
        while (true) {
            CompletableFuture<Void> closing;
            REGISTRY_LOCK.lock();
            try {
                LockDirectory d = REGISTRY.get(real);
                if (d == null) {
                    try {
                        d = new LockDirectory(real);
                    } catch (IOException e) {
                        throw new LockUnavailableException(String.format("lock directory %s cannot be watched: %s",
                                real, e), e);
                    }
                    REGISTRY.put(real, d);
                }
                if (!d.closing) {
                    d.refs++;
                    return d;
                }
                closing = d.closed;
            } finally {
                REGISTRY_LOCK.unlock();
            }
            // The last client of the previous instance is closing it: two instances in one JVM would drop each
            // other's OS locks (POSIX), so wait until it is gone.
            closing.join();
        }
    }

    /**
     * One client less. The last one stops both threads: this JVM's remaining holds are released (as if the process
     * had exited) and its waiters fail with {@link LockUnavailableException}.
     */
    public void detach() {
        REGISTRY_LOCK.lock();
        try {
            if (--refs > 0) {
                return;
            }
            closing = true; // stays registered until closed, so that attach waits instead of opening a second one
        } finally {
            REGISTRY_LOCK.unlock();
        }
        try {
            stop();
        } finally {
            REGISTRY_LOCK.lock();
            try {
                REGISTRY.remove(dir, this);
            } finally {
                REGISTRY_LOCK.unlock();
            }
            closed.complete(null);
        }
    }

    private void stop() {
        Task<Void> close = (s, after) -> {
            shutdown(s, after);
            return null;
        };
        boolean onActor = Thread.currentThread() == actorThread;
        if (onActor) {
            // closed from a callback running on this directory's own thread (an onLost listener, say)
            runNow("close", close);
        } else {
            try {
                submit("close", close).get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.warn("closing lock directory {} failed", dir, e);
            }
        }
        actor.shutdownNow();
        watcher.close();
        if (!onActor) {
            try {
                actor.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public Path path() {
        return dir;
    }

    /** Runs {@code task} on the directory's thread after {@code delayMillis} (never if the directory closes first). */
    void later(Runnable task, long delayMillis) {
        try {
            actor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // closed: nothing left to do
        }
    }

    /** Whether the last client has closed this instance (its thread is stopped or stopping). */
    boolean isClosed() {
        return closed.isDone() || actor.isShutdown();
    }

    /** How this JVM tags its lines in lock files. */
    public String process() {
        return process;
    }

    // ----------------------------------------------------------------------------------------------- operations

    CompletableFuture<Grant> acquire(String namespace, LockKind kind, AcquireRequest request,
                                     BiConsumer<Grant, String> onLost) {
        CompletableFuture<Grant> f = new CompletableFuture<>();
        String file = FileNames.lockFile(namespace, request.name());
        CompletableFuture<Void> queued = submit("acquire", (s, after) -> {
            if (request.isCancelled()) {
                after.add(() -> f.complete(null));
                return null;
            }
            LockEntry e = entries.computeIfAbsent(file, k -> new LockEntry(k, dir.resolve(k), namespace,
                    request.name()));
            Waiter w = new Waiter(request, kind, f, onLost);
            if (kind.shared && request.ownerId().equals(e.exclusiveOwner())) {
                // downgrade: the write holder takes the read lock at once, whoever queues
                grant(e, w, s, after);
                sync(e, s);
                return null;
            }
            e.waiters.add(w);
            try {
                pump(e, s, after);
            } catch (IOException | RuntimeException ex) {
                e.waiters.remove(w);
                removeIfIdle(e);
                throw ex;
            }
            if (e.waiters.contains(w)) {
                if (request.isExpired()) {
                    e.waiters.remove(w);
                    after.add(() -> f.complete(null));
                    pump(e, s, after);
                } else {
                    if (kind.fair && w.ticket == 0) {
                        w.ticket = s.nextToken();
                        sync(e, s);
                    }
                    if (request.deadlineNanos() != AcquireRequest.NO_DEADLINE) {
                        w.timeout = actor.schedule(() -> drop(file, w), request.remainingNanos(),
                                TimeUnit.NANOSECONDS);
                    }
                    request.cancelled().thenRun(() -> drop(file, w));
                    arm(e);
                }
            }
            removeIfIdle(e);
            return null;
        });
        queued.whenComplete((v, t) -> {
            if (t != null) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    CompletableFuture<Boolean> release(String namespace, Grant grant) {
        String file = FileNames.lockFile(namespace, grant.name());
        return submit("release", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e == null) {
                return false;
            }
            expireHolds(e);
            Hold h = e.find(grant.ownerId(), grant.fencingToken());
            if (h == null) {
                pump(e, s, after);
                removeIfIdle(e);
                return false;
            }
            removeHold(e, h);
            pump(e, s, after);
            removeIfIdle(e);
            return true;
        });
    }

    CompletableFuture<Grant> handOff(String namespace, Grant from, AcquireRequest request,
                                     BiConsumer<Grant, String> onLost) {
        String file = FileNames.lockFile(namespace, from.name());
        return submit("handOff", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null) {
                expireHolds(e);
            }
            Hold h = e == null ? null : e.find(from.ownerId(), from.fencingToken());
            if (h == null || h.kind.shared || request.isCancelled()) {
                if (e != null) {
                    pump(e, s, after);
                    removeIfIdle(e);
                }
                return null;
            }
            // The OS lock stays: the lock is never free in between.
            long requestedAt = request.time().nanoTime();
            long token = s.nextToken();
            removeHold(e, h);
            Grant g = new Grant(request, token, requestedAt, null);
            addHold(e, new Hold(g, h.kind, onLost));
            sync(e, s);
            arm(e);
            return g;
        });
    }

    /**
     * Extends the grants' leases on the caller's thread, without waiting for the directory's thread (which may be
     * inside slow file I/O); the lease ends in the files and other processes' revoke requests are then handled
     * there.
     */
    CompletableFuture<Set<Grant>> renew(String namespace, Collection<Grant> grants) {
        Set<Grant> lost = new HashSet<>();
        Set<String> touched = new HashSet<>();
        for (Grant g : grants) {
            String file = FileNames.lockFile(namespace, g.name());
            Hold h = live.get(holdKey(file, g.ownerId(), g.fencingToken()));
            if (h == null || !h.renew(g.leaseMillis())) {
                if (h != null) {
                    log.debug("renewal of {} came after its lease had ended in {}", g, dir);
                }
                lost.add(g);
            } else {
                touched.add(file);
            }
        }
        if (!touched.isEmpty()) {
            execute(() -> runNow("renew", (s, after) -> {
                for (String file : touched) {
                    LockEntry e = entries.get(file);
                    if (e == null) {
                        continue;
                    }
                    if (revokedInFile(e)) {
                        log.info("lock '{}' in {} was force-unlocked by another process", e.name, dir);
                        for (Hold h : e.holds) {
                            after.add(() -> h.onLost.accept(h.grant, "force-unlocked by another process"));
                        }
                        clearHolds(e);
                    }
                    pump(e, s, after);
                    sync(e, s);
                    removeIfIdle(e);
                }
                return null;
            }));
        }
        return CompletableFuture.completedFuture(lost);
    }

    CompletableFuture<Boolean> isLocked(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return submit("isLocked", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null) {
                pump(e, s, after);
                removeIfIdle(e);
                if (!e.holds.isEmpty()) {
                    return true;
                }
                if (e.channel != null) {
                    return false;
                }
            }
            return heldElsewhere(file, s) != null;
        });
    }

    CompletableFuture<Boolean> forceUnlock(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return submit("forceUnlock", (s, after) -> {
            boolean held = false;
            LockEntry e = entries.get(file);
            if (e != null) {
                pump(e, s, after);
                held = !e.holds.isEmpty();
                clearHolds(e);
                pump(e, s, after);
                removeIfIdle(e);
            }
            if (e != null && e.channel != null) {
                return held;
            }
            LockFileRecord other = heldElsewhere(file, s);
            if (other != null) {
                // Another process's OS lock cannot be broken: ask it to end its holds at its next renewal.
                Set<String> processes = new HashSet<>();
                other.holds.forEach(h -> processes.add(h.process()));
                processes.remove(process);
                other.revokes.removeAll(processes);
                other.revokes.addAll(processes);
                LockFileRecord.writeFile(dir.resolve(file), other);
                held = true;
            }
            return held;
        });
    }

    CompletableFuture<String> describeHolder(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return submit("describeHolder", (s, after) -> {
            List<String> owners = new ArrayList<>();
            LockEntry e = entries.get(file);
            if (e != null) {
                pump(e, s, after);
                removeIfIdle(e);
            }
            for (LockInfo info : infos(file, s)) {
                owners.add(String.format("%s %s (token %d, expires in %d ms)", info.kind(), info.owner(),
                        info.fencingToken().orElse(0), info.remainingLease().map(Duration::toMillis).orElse(0L)));
            }
            return owners.isEmpty() ? null : String.join(", ", owners);
        });
    }

    /**
     * The holds of {@code namespace}, from every process, read from the lock files (this JVM's from memory), and its
     * semaphores, held permits and armed latches, read from their state files.
     */
    public CompletableFuture<List<LockInfo>> list(String namespace) {
        return submit("list", (s, after) -> {
            List<LockInfo> result = new ArrayList<>();
            for (String file : lockFiles()) {
                LockEntry e = entries.get(file);
                if (e != null) {
                    pump(e, s, after);
                    removeIfIdle(e);
                }
                for (LockInfo info : infos(file, s)) {
                    result.add(info);
                }
            }
            result.removeIf(info -> !namespace.equals(namespaceOf(info)));
            List<LockInfo> named = new ArrayList<>();
            for (LockInfo info : result) {
                named.add(new LockInfo(info.name().substring(info.name().indexOf('\u0000') + 1), info.owner(), 1,
                        info.fencingToken(), info.remainingLease(), info.waiters(), info.kind(), info.detail()));
            }
            named.addAll(counts.infos(s, namespace));
            return named;
        });
    }

    private static String namespaceOf(LockInfo info) {
        return info.name().substring(0, info.name().indexOf('\u0000'));
    }

    // ------------------------------------------------------------------------------------------------ the engine

    /**
     * Brings {@code e} up to date: ends expired holds, matches the OS lock to the holds, grants waiters in FIFO
     * order while the head is compatible and can get the OS lock, writes the file, arms the timers.
     */
    private void pump(LockEntry e, DirectorySection s, List<Runnable> after) throws IOException {
        expireHolds(e);
        boolean changed = false;
        if (e.holds.isEmpty() && e.osLock != null) {
            // Inside the directory section, like every tryLock and delete: released outside it, another process
            // could lock this file, release it and delete it, and a third create and lock a new file at the path,
            // all before our sync() below enters the section; our probe of the old, unlinked file would then succeed
            // and sync() would delete the third process's file, letting a fourth create and lock another one while
            // the third still holds: two holders (a lost update seen under load in CI).
            s.enter();
            e.osLock.release();
            e.osLock = null;
            changed = true;
        } else if (!e.holds.isEmpty() && e.allShared() && e.osLock != null && !e.osLock.isShared()) {
            // the write hold ended, a downgraded read remains: exclusive → shared. Inside the directory section no
            // other process can lock the file between the two steps.
            s.enter();
            e.osLock.release();
            e.osLock = e.channel.tryLock(LOCK_POSITION, 1, true);
            if (e.osLock == null) {
                throw new IOException("could not turn the exclusive lock of " + e.path + " into a shared one");
            }
            changed = true;
        }
        e.blockedRemotely = false;
        Waiter w;
        while ((w = e.waiters.peek()) != null) {
            if (w.future.isDone() || w.request.isCancelled()) {
                e.waiters.poll();
                cancelTimeout(w);
                Waiter dropped = w;
                after.add(() -> dropped.future.complete(null));
                changed |= w.ticket != 0;
                continue;
            }
            if (!compatible(e, w)) {
                break;
            }
            if (e.holds.isEmpty()) {
                if (w.kind.fair && earlierTicketElsewhere(e, w, s)) {
                    e.blockedRemotely = true;
                    break;
                }
                if (!lockFile(e, w.kind.shared, s)) {
                    e.blockedRemotely = true;
                    break;
                }
            }
            e.waiters.poll();
            cancelTimeout(w);
            grant(e, w, s, after);
            changed = true;
        }
        if (!e.waiters.isEmpty() && e.hasTickets()
                && System.currentTimeMillis() - e.ticketsWrittenMillis >= TICKET_REFRESH_MILLIS) {
            changed = true;
        }
        if (changed) {
            sync(e, s);
        }
        arm(e);
    }

    private static boolean compatible(LockEntry e, Waiter w) {
        if (e.holds.isEmpty()) {
            return true;
        }
        if (!w.kind.shared) {
            return false;
        }
        String exclusive = e.exclusiveOwner();
        return exclusive == null || exclusive.equals(w.request.ownerId());
    }

    private void grant(LockEntry e, Waiter w, DirectorySection s, List<Runnable> after) throws IOException {
        long requestedAt = w.request.time().nanoTime();
        long token = s.nextToken();
        Grant g = new Grant(w.request, token, requestedAt, null);
        addHold(e, new Hold(g, w.kind, w.onLost));
        e.backoffMillis = MIN_RECHECK_MILLIS;
        after.add(() -> w.future.complete(g));
    }

    private static String holdKey(String file, String owner, long token) {
        return file + '\u0000' + owner + '\u0000' + token;
    }

    private void addHold(LockEntry e, Hold h) {
        e.holds.add(h);
        live.put(holdKey(e.file, h.owner(), h.token()), h);
    }

    private void removeHold(LockEntry e, Hold h) {
        h.end();
        e.holds.remove(h);
        live.remove(holdKey(e.file, h.owner(), h.token()), h);
    }

    private void clearHolds(LockEntry e) {
        for (Hold h : new ArrayList<>(e.holds)) {
            removeHold(e, h);
        }
    }

    /** Ends the holds whose lease ran out (renewals race with this through {@link Hold#expire}). */
    private void expireHolds(LockEntry e) {
        long now = System.nanoTime();
        for (Hold h : new ArrayList<>(e.holds)) {
            if (h.expire(now)) {
                removeHold(e, h);
            }
        }
    }

    /** Opens the file if needed and tries its OS lock; inside the directory section. */
    private boolean lockFile(LockEntry e, boolean shared, DirectorySection s) throws IOException {
        s.enter();
        if (e.channel != null && e.osLock == null) {
            // A channel kept from this JVM's previous hold may name a file that no longer exists: our OS lock was
            // released (in pump, before this task entered the section), and while we waited for the section
            // another process could lock that file, finish, and delete it. Locking the unlinked file would succeed
            // beside the holder of the path's new file: two holders. Inside the section the path names the current
            // file (deletes happen inside it), so reopen from the path. Closing drops no lock of ours: this JVM
            // holds none on that file.
            closeChannel(e);
        }
        if (e.channel == null) {
            e.channel = FileChannel.open(e.path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }
        FileLock lock;
        try {
            lock = e.channel.tryLock(LOCK_POSITION, 1, shared);
        } catch (IOException | RuntimeException ex) {
            closeChannel(e);
            throw ex;
        }
        if (lock == null) {
            closeChannel(e);
            return false;
        }
        e.osLock = lock;
        return true;
    }

    private boolean earlierTicketElsewhere(LockEntry e, Waiter w, DirectorySection s) throws IOException {
        s.enter();
        LockFileRecord r = readFile(e);
        if (r == null) {
            return false;
        }
        long staleBefore = System.currentTimeMillis() - STALE_TICKET_MILLIS;
        for (LockFileRecord.WaitLine line : r.liveWaitsOfOthers(process, staleBefore)) {
            if (w.ticket == 0 || line.ticket() < w.ticket) {
                return true;
            }
        }
        return false;
    }

    /**
     * Writes this JVM's lines for {@code e} into its file, keeping other processes' live lines; deletes the file
     * when nobody holds it (its OS lock is free) and nobody queues in it. Closes the channel once this JVM holds
     * nothing. Inside the directory section.
     */
    private void sync(LockEntry e, DirectorySection s) throws IOException {
        s.enter();
        if (e.channel != null && e.osLock == null) {
            // As in lockFile: a channel we hold no lock through may name a file another process has deleted since;
            // probing it would succeed and then delete the path's NEW file, which someone may hold.
            closeChannel(e);
        }
        boolean temporary = e.channel == null;
        FileChannel ch = e.channel;
        if (temporary) {
            boolean ours = !e.holds.isEmpty() || e.hasTickets();
            if (!ours && !Files.exists(e.path)) {
                return;
            }
            ch = FileChannel.open(e.path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }
        try {
            LockFileRecord r = LockFileRecord.read(ch);
            r.namespace = e.namespace;
            r.name = e.name;
            r.removeProcess(process);
            long nowMillis = System.currentTimeMillis();
            r.waits.removeIf(line -> line.refreshedMillis() <= nowMillis - STALE_TICKET_MILLIS);
            r.holds.removeIf(line -> line.leaseEndMillis() <= nowMillis);
            if (e.osLock != null && !e.osLock.isShared()) {
                r.holds.clear(); // we hold it exclusively: every other hold line is a dead process's
                r.revokes.clear();
            } else if (e.osLock != null) {
                r.holds.removeIf(line -> !line.kind().equals(LockKind.READ.label)); // only readers can be alive
            }
            for (Hold h : e.holds) {
                r.holds.add(new LockFileRecord.HoldLine(process, h.kind.label, h.token(), h.leaseEndMillis,
                        h.owner()));
            }
            for (Waiter w : e.waiters) {
                if (w.ticket != 0) {
                    r.waits.add(new LockFileRecord.WaitLine(process, w.ticket, nowMillis, w.request.ownerId()));
                }
            }
            e.ticketsWrittenMillis = nowMillis;
            if (e.osLock == null) {
                FileLock probe = ch.tryLock(LOCK_POSITION, 1, false);
                if (probe != null) {
                    try {
                        if (r.waits.isEmpty()) {
                            Files.deleteIfExists(e.path);
                            return;
                        }
                        r.holds.clear();
                        r.revokes.clear();
                    } finally {
                        probe.release();
                    }
                }
            }
            r.write(ch);
        } finally {
            if (temporary) {
                ch.close();
            } else if (e.osLock == null) {
                closeChannel(e);
            }
        }
    }

    /** The record of {@code file} if another process holds its OS lock, else {@code null}. */
    private LockFileRecord heldElsewhere(String file, DirectorySection s) throws IOException {
        s.enter();
        Path path = dir.resolve(file);
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException gone) {
            return null;
        }
        try (ch) {
            FileLock probe = ch.tryLock(LOCK_POSITION, 1, false);
            if (probe == null) {
                return LockFileRecord.read(ch);
            }
            try {
                LockFileRecord r = LockFileRecord.read(ch);
                long staleBefore = System.currentTimeMillis() - STALE_TICKET_MILLIS;
                if (r.liveWaitsOfOthers(process, staleBefore).isEmpty() && !entries.containsKey(file)) {
                    Files.deleteIfExists(path); // left by a crashed holder
                }
            } finally {
                probe.release();
            }
            return null;
        }
    }

    private boolean revokedInFile(LockEntry e) throws IOException {
        if (e.channel == null) {
            return false;
        }
        return LockFileRecord.read(e.channel).revokes.contains(process);
    }

    /**
     * What is held in {@code file}: this JVM's holds from memory, other processes' live hold lines from the file
     * when its OS lock is taken. Names are {@code namespace NUL name}.
     */
    private List<LockInfo> infos(String file, DirectorySection s) throws IOException {
        List<LockInfo> infos = new ArrayList<>();
        long nowMillis = System.currentTimeMillis();
        LockEntry e = entries.get(file);
        LockFileRecord r;
        if (e != null && e.channel != null) {
            long now = System.nanoTime();
            for (Hold h : e.holds) {
                long deadline = h.deadline();
                if (deadline != Hold.DEAD) {
                    infos.add(info(e.namespace, e.name, h.owner(), h.token(),
                            Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - now)), h.kind.label));
                }
            }
            r = e.osLock != null && e.osLock.isShared() ? LockFileRecord.read(e.channel) : null;
        } else {
            r = heldElsewhere(file, s);
        }
        if (r != null) {
            for (LockFileRecord.HoldLine h : r.holds) {
                if (!h.process().equals(process) && h.leaseEndMillis() > nowMillis && r.name != null) {
                    infos.add(info(r.namespace == null ? "" : r.namespace, r.name, h.owner(), h.token(),
                            h.leaseEndMillis() - nowMillis, h.kind()));
                }
            }
        }
        return infos;
    }

    private static LockInfo info(String namespace, String name, String owner, long token, long leftMillis,
                                 String kind) {
        return new LockInfo(namespace + '\u0000' + name, owner, 1, OptionalLong.of(token),
                Optional.of(Duration.ofMillis(leftMillis)), OptionalInt.empty(), kind, "");
    }

    private List<String> lockFiles() throws IOException {
        List<String> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                String f = p.getFileName().toString();
                if (FileNames.isLockFile(f)) {
                    files.add(f);
                }
            }
        }
        files.sort(null);
        return files;
    }

    private void sweep(DirectorySection s) throws IOException {
        for (String file : lockFiles()) {
            if (!entries.containsKey(file)) {
                heldElsewhere(file, s);
            }
        }
        counts.sweepTemporaries(s);
    }

    // ------------------------------------------------------------------------------------------- timers, events

    /** Arms the entry's expiry timer (earliest hold) and, while waiters wait, its re-check timer. */
    private void arm(LockEntry e) {
        long earliest = 0;
        boolean any = false;
        for (Hold h : e.holds) {
            long deadline = h.deadline();
            if (deadline != Hold.DEAD && (!any || deadline - earliest < 0)) {
                earliest = deadline;
                any = true;
            }
        }
        if (!any) {
            cancel(e.expiry);
            e.expiry = null;
        } else if (e.expiry == null || e.expiryAtNanos != earliest) {
            cancel(e.expiry);
            e.expiryAtNanos = earliest;
            e.expiry = actor.schedule(() -> onTimer(e.file), Math.max(0, earliest - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }
        long delayMillis;
        if (e.waiters.isEmpty()) {
            delayMillis = -1;
        } else if (e.blockedRemotely) {
            delayMillis = e.backoffMillis;
        } else if (e.hasTickets()) {
            delayMillis = TICKET_REFRESH_MILLIS;
        } else {
            delayMillis = -1; // blocked by a hold of this JVM: its release or expiry pumps
        }
        if (delayMillis < 0) {
            cancel(e.recheck);
            e.recheck = null;
        } else if (e.recheck == null || e.recheck.isDone()) {
            e.recheck = actor.schedule(() -> {
                e.backoffMillis = Math.min(MAX_RECHECK_MILLIS, e.backoffMillis * 2);
                onTimer(e.file);
            }, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void onTimer(String file) {
        runNow("re-check", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null) {
                e.recheck = null;
                e.expiry = null;
                pump(e, s, after);
                removeIfIdle(e);
            }
            return null;
        });
    }

    /** A change in the directory (from the watcher thread). */
    private void onFileEvent(String file) {
        if (!FileNames.isLockFile(file)) {
            counts.changed(file); // a counted primitive's state file
            return;
        }
        execute(() -> {
            LockEntry e = entries.get(file);
            if (e != null && !e.waiters.isEmpty() && e.blockedRemotely) {
                e.backoffMillis = MIN_RECHECK_MILLIS;
                cancel(e.recheck);
                e.recheck = null;
                runNow("wake-up", (s, after) -> {
                    pump(e, s, after);
                    removeIfIdle(e);
                    return null;
                });
            }
        });
    }

    private void onOverflow() {
        counts.changedAll();
        execute(() -> {
            for (LockEntry e : new ArrayList<>(entries.values())) {
                if (!e.waiters.isEmpty()) {
                    onTimer(e.file);
                }
            }
        });
    }

    private void drop(String file, Waiter w) {
        execute(() -> runNow("cancel", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null && e.waiters.remove(w)) {
                cancelTimeout(w);
                after.add(() -> w.future.complete(null));
                if (w.ticket != 0) {
                    sync(e, s);
                }
                pump(e, s, after); // the dropped waiter may have blocked compatible ones behind it
                removeIfIdle(e);
            }
            return null;
        }));
    }

    private void removeIfIdle(LockEntry e) {
        if (e.idle() && entries.get(e.file) == e) {
            cancel(e.expiry);
            cancel(e.recheck);
            entries.remove(e.file);
        }
    }

    private void shutdown(DirectorySection s, List<Runnable> after) {
        stopped = true;
        counts.close();
        LockUnavailableException closed = new LockUnavailableException(
                String.format("lock directory %s closed", dir));
        for (LockEntry e : new ArrayList<>(entries.values())) {
            for (Waiter w : e.waiters) {
                cancelTimeout(w);
                after.add(() -> w.future.completeExceptionally(closed));
            }
            e.waiters.clear();
            clearHolds(e);
            try {
                pump(e, s, after);
            } catch (IOException | RuntimeException ex) {
                log.debug("releasing {} at close failed", e.path, ex);
                closeChannel(e);
            }
            cancel(e.expiry);
            cancel(e.recheck);
        }
        entries.clear();
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    /** Work on the directory's thread in one directory section; {@code after} runs once the section is left. */
    @FunctionalInterface
    interface Task<T> {
        T run(DirectorySection s, List<Runnable> after) throws IOException;
    }

    /**
     * Runs {@code task} on the directory's thread (the counted primitives' operations); the result fails with
     * {@link LockUnavailableException} if it throws or the directory is closed.
     */
    <T> CompletableFuture<T> run(String op, Task<T> task) {
        return submit(op, task);
    }

    /**
     * Runs {@code task} on the directory's thread, inside one directory section, only if lock {@code name} of
     * {@code namespace} has an exclusive hold of this JVM with {@code token} that has not expired; otherwise
     * completes with {@code stale} and runs nothing. For the fenced store: holds end only on this thread and no other
     * process can lock the file while ours holds, so the hold stays current until the task returns.
     */
    <T> CompletableFuture<T> whileHeld(String namespace, String name, long token, Task<T> task, T stale) {
        String file = FileNames.lockFile(namespace, name);
        return submit("fenced store write", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e == null) {
                return stale;
            }
            pump(e, s, after);
            boolean held = false;
            for (Hold h : e.holds) {
                held |= h.token() == token && !h.kind.shared;
            }
            removeIfIdle(e);
            if (!held) {
                return stale;
            }
            s.enter();
            return task.run(s, after);
        });
    }

    /** The counted primitives' state files of this directory. */
    CountFiles counts() {
        return counts;
    }

    private <T> CompletableFuture<T> submit(String op, Task<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            actor.execute(() -> {
                if (stopped) {
                    result.completeExceptionally(new LockUnavailableException(
                            String.format("lock directory %s closed (%s)", dir, op)));
                    return;
                }
                runNow(op, task, result);
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new LockUnavailableException(
                    String.format("lock directory %s closed (%s)", dir, op), e));
        }
        return result;
    }

    private void execute(Runnable r) {
        try {
            actor.execute(r);
        } catch (RejectedExecutionException closing) {
            // the directory is closing; its waiters are failed by shutdown()
        }
    }

    private <T> void runNow(String op, Task<T> task) {
        runNow(op, task, new CompletableFuture<>());
    }

    /** Runs {@code task} on the actor thread in one directory section; completions run after the section. */
    private <T> void runNow(String op, Task<T> task, CompletableFuture<T> result) {
        List<Runnable> after = new ArrayList<>();
        T value = null;
        Throwable failure = null;
        DirectorySection s = new DirectorySection(stateFile);
        try {
            value = task.run(s, after);
        } catch (IOException | RuntimeException e) {
            failure = e;
        } finally {
            try {
                s.close();
            } catch (IOException e) {
                log.debug("leaving the directory section of {} failed", dir, e);
            }
        }
        for (Runnable r : after) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("completion after {} in {} failed", op, dir, e);
            }
        }
        if (failure != null) {
            log.debug("{} in {} failed", op, dir, failure);
            result.completeExceptionally(failure instanceof LockUnavailableException ? failure
                    : new LockUnavailableException(String.format("lock directory %s: %s failed: %s", dir, op,
                            failure), failure));
        } else {
            result.complete(value);
        }
    }

    private static void cancel(java.util.concurrent.Future<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    private static void cancelTimeout(Waiter w) {
        cancel(w.timeout);
        w.timeout = null;
    }

    private static void closeChannel(LockEntry e) {
        if (e.channel != null) {
            try {
                e.channel.close();
            } catch (IOException ex) {
                log.debug("closing {} failed", e.path, ex);
            }
            e.channel = null;
            e.osLock = null;
        }
    }

    private LockFileRecord readFile(LockEntry e) throws IOException {
        if (e.channel != null && e.osLock != null) { // held: the channel names the path's current file
            return LockFileRecord.read(e.channel);
        }
        try (FileChannel ch = FileChannel.open(e.path, StandardOpenOption.READ)) {
            return LockFileRecord.read(ch);
        } catch (NoSuchFileException gone) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "LockDirectory{" + dir + ", process=" + process + "}";
    }
}
