package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.spi.LockInfo;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state files of the counted primitives of one directory, shared by every client of this JVM on it.
 * {@link #load} and {@link #store} run on the directory's thread inside one {@link DirectorySection}, the
 * directory's exclusive OS lock, held for the few system calls of one read-modify-write and never while anyone
 * waits: so concurrent changes from any thread, client or process are applied one after the other and none is lost.
 * Leases of permit-expirable semaphores end by the wall clock, which every process of the host shares (as do the
 * lock files' lease ends); one that ended is dropped whenever the file is read, and from the file with the next write.
 *
 * <p>Wake-ups, never while the section is held: {@link #store} tells this JVM's subscribers of a change that may let
 * a waiter in; the {@link DirectoryWatcher} tells them of every change of the file (another process's, or our own
 * again: a harmless second wake-up) and of lost events. Nobody writes the file when a lease runs out (its holder may
 * be dead): a lease attempt that found no permit answers when the earliest lease ends. The engine's re-check
 * ({@link RemoteCountOps#recheckMillis()}) covers the rest (a watch service that polls, a network file system).
 */
final class CountFiles {
    private static final Logger log = LoggerFactory.getLogger(CountFiles.class);

    /** One read of a state file inside a section, and what the operation did with it. */
    static final class Loaded {
        final String file;
        final Path path;
        /** When the file was read (epoch ms): leases that ended by then are gone from {@link #record}. */
        final long nowMillis;
        /** The name's record with a count of 0, for a file that does not exist yet. */
        private final CountRecord blank;
        /** The state, {@code null} if the file does not exist; set to {@code null} to delete it. */
        CountRecord record;
        /** Whether {@link #store} writes (or deletes) the file. */
        boolean changed;
        /** Whether {@link #store} tells this JVM's subscribers (the change may let a waiter in). */
        boolean wake;

        Loaded(String file, Path path, long nowMillis, CountRecord record, CountRecord blank) {
            this.file = file;
            this.path = path;
            this.nowMillis = nowMillis;
            this.record = record;
            this.blank = blank;
        }

        /** The record, created with a count of 0 if the file does not exist yet. */
        CountRecord orCreate() {
            return record == null ? record = blank : record;
        }
    }

    private final Path dir;
    private final PushRegistry<Void> pushes;

    CountFiles(Path dir, PushRegistry<Void> pushes) {
        this.dir = dir;
        this.pushes = pushes;
    }

    /** Reads the state file of {@code name}; on the directory's thread, entering the section. */
    Loaded load(DirectorySection s, String namespace, String name, CountKind kind) throws IOException {
        s.enter();
        String file = FileNames.countFile(namespace, name, kind);
        Path path = dir.resolve(file);
        CountRecord r = CountRecord.read(path);
        if (r != null && (r.kind != kind || !r.namespace.equals(namespace) || !r.name.equals(name))) {
            throw new IOException(String.format("state file %s names %s '%s' of namespace '%s', not %s '%s'", path,
                    r.kind.label(), r.name, r.namespace, kind.label(), name));
        }
        long now = System.currentTimeMillis();
        if (r != null && kind == CountKind.PERMITS) {
            r.dropExpired(now);
        }
        return new Loaded(file, path, now, r, new CountRecord(kind, namespace, name, 0));
    }

    /**
     * Writes (or deletes) the loaded's file if it changed, inside the section; tells this JVM's subscribers after
     * the section if it may let a waiter in.
     */
    void store(DirectorySection s, Loaded loaded, List<Runnable> after) throws IOException {
        if (loaded.changed) {
            s.enter();
            if (loaded.record == null) {
                Files.deleteIfExists(loaded.path);
            } else {
                loaded.record.write(loaded.path);
            }
        }
        if (loaded.wake) {
            after.add(() -> pushes.fire(loaded.file, null));
        }
    }

    /**
     * Deletes temporary files ({@code <state file>.tmp}) left by a process killed between writing one and renaming it
     * over its state file; inside the section, where nobody else is between the two steps.
     */
    void sweepTemporaries(DirectorySection s) throws IOException {
        s.enter();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "lk-*.tmp")) {
            for (Path p : stream) {
                String f = p.getFileName().toString();
                if (FileNames.countKind(f.substring(0, f.length() - ".tmp".length())) != null) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * One {@code inspect} row per held permit ({@code "permit"}: owner the permit id, with token and lease left) and
     * one per semaphore, permit-expirable semaphore without held permits, and armed latch (owner
     * {@link LockInfo#NO_OWNER}, the count in the detail), of {@code namespace}; read from the state files, inside
     * the section. A damaged file is skipped (and logged).
     */
    List<LockInfo> infos(DirectorySection s, String namespace) throws IOException {
        s.enter();
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                if (FileNames.countKind(p.getFileName().toString()) != null) {
                    files.add(p);
                }
            }
        }
        long now = System.currentTimeMillis();
        List<LockInfo> infos = new ArrayList<>();
        for (Path p : files) {
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
}
