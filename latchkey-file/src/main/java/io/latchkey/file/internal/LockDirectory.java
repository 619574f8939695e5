package io.latchkey.file.internal;

import io.latchkey.LockHolder;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.CountKind;
import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.core.PushRegistry;
import io.latchkey.file.internal.LockEntry.FileGrantState;
import io.latchkey.spi.LockInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lock directory as this JVM sees it, shared by every client of this JVM on it ({@link #attach}): OS file locks
 * belong to the process, so two channels of one JVM on one file would throw
 * {@link java.nio.channels.OverlappingFileLockException}, and closing either would drop the other's lock (POSIX).
 * So this JVM opens each lock file at most once, arbitrates between its own clients in memory ({@link LockArbiter})
 * and holds one OS lock per file while any of them holds the name. A process that is alive but frozen (SIGSTOP, a
 * debugger) keeps its OS locks: nobody else can break them.
 *
 * <h2>Threads</h2>
 * Every operation, timer and file access runs on one thread, {@code latchkey-file-<8 hex of the directory>}
 * ({@link DirectoryThread}), not on the client's {@link io.latchkey.core.MaintenanceScheduler}: its tasks block (the
 * directory section is a blocking {@code FileChannel.lock()} across processes) and the directory is shared by
 * clients that each have their own. Renewal is the exception: it extends a grant's lease end by compare-and-set
 * ({@link io.latchkey.core.NameArbiter.GrantState}) on the engine's watchdog thread, never behind slow file I/O.
 * {@code latchkey-file-watch-<…>} ({@link DirectoryWatcher}) reports other processes' changes. Both are daemons,
 * started by the first {@link #attach} and stopped by the last {@link #detach()}.
 */
public final class LockDirectory {
    private static final Logger log = LoggerFactory.getLogger(LockDirectory.class);

    private static final ReentrantLock REGISTRY_LOCK = new ReentrantLock();
    private static final Map<Path, LockDirectory> REGISTRY = new HashMap<>();

    private final Path dir;
    /** Tags this JVM's lines in lock files: {@code <pid>-<8 random hex>}. */
    private final String process;
    /** The one thread every task runs on. */
    final DirectoryThread thread;
    private final DirectoryWatcher watcher;
    /** The lock files and their OS locks. */
    final LockFiles files;
    /** This JVM's arbitration of the directory's locks (acquire, release, hand-off, renewal). */
    final LockArbiter arbiter;
    /** The subscribers of the lock files and state files, by file name. */
    final PushRegistry<Void> pushes = new PushRegistry<>();
    // guarded by REGISTRY_LOCK
    private int refs;
    private boolean closing;
    /** Completes once the last client's close has stopped this instance. */
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private LockDirectory(Path dir) throws IOException {
        this.dir = dir;
        String label = FileNames.hash("", dir.toString()).substring(0, 8);
        // first: if watching fails, nothing else has started (the directory's thread starts with its first task)
        this.watcher = new DirectoryWatcher(dir, "latchkey-file-watch-" + label, file -> pushes.fire(file, null),
                pushes::fireAll);
        this.process = ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.thread = new DirectoryThread(dir, label);
        this.files = new LockFiles(dir, process);
        this.arbiter = new LockArbiter(dir, thread, files, file -> pushes.fire(file, null));
        // Lock files left by processes that crashed while holding are deleted (if nobody holds or queues), and
        // temporary files of state files that a crashed process wrote but never renamed.
        thread.submit("sweep", (s, after) -> {
            for (String file : FileNames.list(dir, FileNames::isLockFile)) {
                if (arbiter.entry(file) == null) {
                    files.heldElsewhere(file, false, s);
                }
            }
            sweepTemporaries(s);
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
            thread.stopped = true;
            pushes.close();
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
        thread.executor.shutdownNow();
        watcher.close();
        if (!onThread) {
            thread.awaitTermination(5);
        }
    }

    public Path path() {
        return dir;
    }

    /** The rows of {@link io.latchkey.file.FileLockClient#list} for {@code namespace}, unfiltered and unsorted. */
    public CompletableFuture<List<LockInfo>> list(String namespace) {
        return thread.submit("list", (s, after) -> {
            List<LockInfo> result = new ArrayList<>();
            for (String file : FileNames.list(dir, FileNames::isLockFile)) {
                arbiter.refresh(file, s, after);
                result.addAll(infos(file, namespace, s));
            }
            result.addAll(countInfos(s, namespace));
            return result;
        });
    }

    /**
     * What is held in {@code file} of {@code namespace} (any, if {@code null}): this JVM's grants from memory, other
     * processes' live hold lines from the file when its OS lock is taken.
     */
    List<LockInfo> infos(String file, String namespace, DirectorySection s) throws IOException {
        List<LockInfo> infos = new ArrayList<>();
        long nowMillis = System.currentTimeMillis();
        LockEntry e = arbiter.entry(file);
        LockFileRecord r;
        if (e != null && e.channel != null) {
            long now = System.nanoTime();
            for (FileGrantState h : e.holds()) {
                long deadline = h.leaseEnd();
                if (deadline != GrantState.ENDED && (namespace == null || namespace.equals(e.namespace))) {
                    infos.add(info(e.name, h.owner(), h.token(),
                            Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - now)), h.client.kind().label(),
                            h.clientName(), h.sinceMillis()));
                }
            }
            r = e.osLock != null && e.osLock.isShared() ? LockFileRecord.read(e.channel) : null;
        } else {
            r = files.heldElsewhere(file, arbiter.entry(file) != null, s);
        }
        if (r == null || r.name == null
                || namespace != null && !namespace.equals(r.namespace == null ? "" : r.namespace)) {
            return infos;
        }
        for (LockFileRecord.HoldLine h : r.holds) {
            if (!h.process().equals(process) && h.leaseEndMillis() > nowMillis) {
                infos.add(info(r.name, h.owner(), h.token(), h.leaseEndMillis() - nowMillis, h.kind(),
                        h.clientName(), h.sinceMillis()));
            }
        }
        return infos;
    }

    /** One hold's row; a {@code null} client (a lock file without its {@code holder} line) is unknown. */
    private static LockInfo info(String name, String owner, long token, long leftMillis, String kind, String client,
                                 long sinceMillis) {
        return new LockInfo(name, owner, 1, OptionalLong.of(token), Optional.of(Duration.ofMillis(leftMillis)),
                OptionalInt.empty(), kind, "").withHolder(client == null ? LockHolder.UNKNOWN_CLIENT : client,
                client == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(sinceMillis)));
    }

    /**
     * Deletes temporary files ({@code <state file>.tmp}) left by a process killed between writing one and renaming it
     * over its state file; inside the section, where nobody else is between the two steps.
     */
    private void sweepTemporaries(DirectorySection s) throws IOException {
        s.enter();
        for (String tmp : FileNames.list(dir, f -> f.endsWith(".tmp")
                && FileNames.countKind(f.substring(0, f.length() - ".tmp".length())) != null)) {
            Files.deleteIfExists(dir.resolve(tmp));
        }
    }

    /**
     * One {@code inspect} row per held permit ({@code "permit"}: owner the permit id, with token and lease left) and
     * one per semaphore, permit-expirable semaphore without held permits, and armed latch (owner
     * {@link LockInfo#NO_OWNER}, the count in the detail), of {@code namespace}; read from the state files, inside
     * the section. A damaged file is skipped (and logged).
     */
    private List<LockInfo> countInfos(DirectorySection s, String namespace) throws IOException {
        s.enter();
        long now = System.currentTimeMillis();
        List<LockInfo> infos = new ArrayList<>();
        for (String file : FileNames.list(dir, f -> FileNames.countKind(f) != null)) {
            Path p = dir.resolve(file);
            CountRecord r;
            try {
                r = CountRecord.read(p);
            } catch (IOException damaged) {
                log.debug("inspect skips {}", p, damaged);
                continue;
            }
            if (r == null || !r.namespace.equals(namespace)) {
                continue;
            }
            switch (r.kind) {
                case SEMAPHORE -> infos.add(unowned(r.name, "semaphore", r.count + " permits available"));
                case LATCH -> infos.add(unowned(r.name, "latch", "count " + r.count));
                case PERMITS -> {
                    r.dropExpired(now);
                    String detail = String.format("%d of %d permits available", r.available(), r.count);
                    for (CountRecord.Lease l : r.leases) {
                        infos.add(new LockInfo(r.name, l.permitId(), 1, OptionalLong.of(l.token()),
                                Optional.of(Duration.ofMillis(l.endMillis() - now)), OptionalInt.empty(), "permit",
                                detail));
                    }
                    if (r.leases.isEmpty()) {
                        infos.add(unowned(r.name, "permit-semaphore", detail));
                    }
                }
                default -> throw new IllegalStateException("kind " + r.kind);
            }
        }
        return infos;
    }

    private static LockInfo unowned(String name, String kind, String detail) {
        return new LockInfo(name, LockInfo.NO_OWNER, 1, OptionalLong.empty(), Optional.empty(), OptionalInt.empty(),
                kind, detail);
    }

    @Override
    public String toString() {
        return "LockDirectory{" + dir + ", process=" + process + "}";
    }
}
