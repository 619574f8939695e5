package io.latchkey.file.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.spi.LockInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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
 * <p>This class is the directory's face and lifecycle: the per-JVM registry ({@link #attach}, {@link #detach()}) and
 * the wiring of its parts, one job each: {@link DirectoryThread} (the one thread every task runs on),
 * {@link LockArbiter} (single attempts: this JVM's grants and queue of waiting owners per name, and the lease-end
 * timers), {@link LockFiles} (lock files and
 * OS locks), {@link FileInspector} (is-locked, holders, listing, force-unlock), {@link CountFiles} (the counted
 * primitives' state files) and {@link DirectoryWatcher} (change events).
 *
 * <h2>Threads</h2>
 * All state is confined to one thread, {@code latchkey-file-<8 hex of the directory>}, which runs every operation,
 * timer and file access (a few system calls each). The exception is renewal: it extends a grant's lease end
 * (compare-and-set, see {@link io.latchkey.core.NameArbiter.GrantState}) on the engine's watchdog thread, so that a
 * renewal never waits behind slow file I/O, and leaves the rewrite of the lease end in the file to this thread. A
 * second thread, {@code latchkey-file-watch-<…>}, blocks in {@link java.nio.file.WatchService#take()} and posts the
 * directory's change events to the first. Both are daemons, started by the first {@link #attach} and stopped by the
 * last {@link #detach()} (the last client's {@code close()}).
 *
 * <h2>Waiting</h2>
 * The engine waits; the subscribers of a lock file ({@link CountFiles#subscribe}, shared with the counted primitives)
 * are told at once of a release, lease end or withdrawal in this JVM. For a release in another process: that process
 * deletes or rewrites the lock file, and the watch event tells them, and the waiter's next attempt retries
 * {@code tryLock}; as the fallback (a SIGKILLed holder changes no file: the kernel just drops its lock; watch services
 * that poll, as on macOS) an attempt blocked by another process answers a re-check after 20 ms, growing to at most
 * {@value LockArbiter#MAX_RECHECK_MILLIS} ms, so a dead holder's lock is taken over within about 200 ms. Nothing blocks in {@code FileChannel.lock()} except the short directory
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

    private static final ReentrantLock REGISTRY_LOCK = new ReentrantLock();
    private static final Map<Path, LockDirectory> REGISTRY = new HashMap<>();

    private final Path dir;
    /** Tags this JVM's lines in lock files: {@code <pid>-<8 random hex>}. */
    private final String process;
    private final DirectoryThread thread;
    private final DirectoryWatcher watcher;
    private final LockFiles files;
    private final LockArbiter arbiter;
    private final FileInspector inspection;
    /** The counted primitives' state files and their wake-ups. */
    private final CountFiles counts;
    // guarded by REGISTRY_LOCK
    private int refs;
    private boolean closing;
    /** Completes once the last client's close has stopped this instance. */
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private LockDirectory(Path dir) throws IOException {
        this.dir = dir;
        String label = FileNames.lockFile("", dir.toString()).substring(FileNames.PREFIX.length(),
                FileNames.PREFIX.length() + 8);
        this.process = ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.thread = new DirectoryThread(dir, label);
        this.files = new LockFiles(dir, process);
        this.counts = new CountFiles(dir);
        this.arbiter = new LockArbiter(dir, thread, files, counts::changed);
        this.inspection = new FileInspector(thread, arbiter, files, counts, process);
        DirectoryWatcher w;
        try {
            w = new DirectoryWatcher(dir, "latchkey-file-watch-" + label, this::onFileEvent, this::onOverflow);
        } catch (IOException | RuntimeException e) {
            thread.shutdownNow();
            throw e;
        }
        this.watcher = w;
        // Lock files left by processes that crashed while holding are deleted (if nobody holds or queues), and
        // temporary files of state files that a crashed process wrote but never renamed.
        thread.submit("sweep", (s, after) -> {
            for (String file : files.list()) {
                if (!arbiter.tracks(file)) {
                    files.heldElsewhere(file, false, s);
                }
            }
            counts.sweepTemporaries(s);
            return null;
        });
    }

    /**
     * The JVM's instance for {@code dir} (created, with the directory, on first use).
     *
     * @throws LockUnavailableException if the directory cannot be created, read or written
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
        checkWritable(real);
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
     * Fails unless this process can create (and remove) a file in {@code dir}, as every hold does: otherwise the
     * connect would succeed and the first acquire fail. A read-only mount, an immutable directory or missing write
     * permission all show here, at connect.
     */
    private static void checkWritable(Path dir) {
        Path probe = dir.resolve(FileNames.WRITE_PROBE_PREFIX + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            Files.createFile(probe);
            Files.delete(probe);
        } catch (IOException e) {
            throw new LockUnavailableException(String.format(
                    "lock directory %s is not writable by this process (%s): every hold creates a file in it", dir,
                    e), e);
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
        DirectoryThread.Task<Void> close = (s, after) -> {
            thread.markStopped();
            counts.close();
            arbiter.closeAll(s, after);
            return null;
        };
        boolean onThread = thread.isCurrent();
        if (onThread) {
            // closed from a callback running on this directory's own thread (an onLost listener, say)
            thread.runNow("close", close);
        } else {
            try {
                thread.submit("close", close).get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.warn("closing lock directory {} failed", dir, e);
            }
        }
        thread.shutdownNow();
        watcher.close();
        if (!onThread) {
            thread.awaitTermination(5);
        }
    }

    public Path path() {
        return dir;
    }

    /** Runs {@code task} on the directory's thread after {@code delayMillis} (never if the directory closes first). */
    void later(Runnable task, long delayMillis) {
        thread.later(task, delayMillis);
    }

    /** Whether the last client has closed this instance (its thread is stopped or stopping). */
    boolean isClosed() {
        return closed.isDone() || thread.isShutdown();
    }

    /** How this JVM tags its lines in lock files. */
    public String process() {
        return process;
    }

    // ----------------------------------------------------------------------------------------------- operations

    /** This JVM's arbitration of the directory's locks (acquire, release, hand-off, renewal). */
    LockArbiter locks() {
        return arbiter;
    }

    /** Is-locked, holders and force-unlock of the directory's locks. */
    FileInspector inspection() {
        return inspection;
    }

    /**
     * The holds of {@code namespace}, from every process, read from the lock files (this JVM's from memory), and its
     * semaphores, held permits and armed latches, read from their state files.
     */
    public CompletableFuture<List<LockInfo>> list(String namespace) {
        return inspection.list(namespace);
    }

    /**
     * Runs {@code task} on the directory's thread (the counted primitives' operations); the result fails with
     * {@link LockUnavailableException} if it throws or the directory is closed.
     */
    <T> CompletableFuture<T> run(String op, DirectoryThread.Task<T> task) {
        return thread.submit(op, task);
    }

    /**
     * Runs {@code task} on the directory's thread, inside one directory section, only if lock {@code name} of
     * {@code namespace} has an exclusive hold of this JVM with {@code token} that has not expired; otherwise
     * completes with {@code stale} and runs nothing. For the fenced store: holds end only on this thread and no other
     * process can lock the file while ours holds, so the hold stays current until the task returns.
     */
    <T> CompletableFuture<T> whileHeld(String namespace, String name, long token, DirectoryThread.Task<T> task,
                                       T stale) {
        String file = FileNames.lockFile(namespace, name);
        return thread.submit("fenced store write", (s, after) -> {
            LockEntry e = arbiter.entry(file);
            if (e == null) {
                return stale;
            }
            arbiter.pump(e, s, after);
            boolean held = e.holdsExclusive(token);
            arbiter.removeIfIdle(e);
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

    // ----------------------------------------------------------------------------------------------- events

    /** A change in the directory (from the watcher thread). */
    private void onFileEvent(String file) {
        counts.changed(file); // a lock file's or a counted primitive's state file's subscribers look again
    }

    private void onOverflow() {
        counts.changedAll();
    }

    @Override
    public String toString() {
        return "LockDirectory{" + dir + ", process=" + process + "}";
    }
}
