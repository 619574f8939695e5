package io.latchkey.file.internal;

import io.latchkey.LockHolder;
import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.file.internal.LockEntry.FileGrantState;
import io.latchkey.spi.LockInfo;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The operator's side of a lock directory: is a name locked, who holds it, what is held in a namespace (locks from
 * the lock files, this JVM's from memory, and the counted primitives from their state files), and force-unlock
 * (this JVM's grants end at once; another process is asked through a revoke line to end its own at its next
 * renewal). Each call is one task on the directory's thread.
 */
final class FileInspector {

    private final DirectoryThread thread;
    private final LockArbiter arbiter;
    private final LockFiles files;
    private final CountFiles counts;
    private final String process;

    FileInspector(DirectoryThread thread, LockArbiter arbiter, LockFiles files, CountFiles counts, String process) {
        this.thread = thread;
        this.arbiter = arbiter;
        this.files = files;
        this.counts = counts;
        this.process = process;
    }

    CompletableFuture<Boolean> isLocked(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return thread.submit("isLocked", (s, after) -> {
            LockEntry e = arbiter.entry(file);
            if (e != null) {
                arbiter.pump(e, s, after);
                arbiter.removeIfIdle(e);
                if (!e.holds().isEmpty()) {
                    return true;
                }
                if (e.channel != null) {
                    return false;
                }
            }
            return files.heldElsewhere(file, arbiter.tracks(file), s) != null;
        });
    }

    CompletableFuture<Boolean> forceUnlock(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return thread.submit("forceUnlock", (s, after) -> {
            boolean held = false;
            LockEntry e = arbiter.entry(file);
            if (e != null) {
                arbiter.pump(e, s, after);
                held = !e.holds().isEmpty();
                arbiter.clearGrants(e);
                arbiter.pump(e, s, after);
                arbiter.removeIfIdle(e);
            }
            if (e != null && e.channel != null) {
                return held;
            }
            LockFileRecord other = files.heldElsewhere(file, arbiter.tracks(file), s);
            if (other != null) {
                files.requestRevoke(file, other);
                held = true;
            }
            return held;
        });
    }

    /** Who holds the lock: the first hold, this JVM's from memory, another process's from the lock file. */
    CompletableFuture<LockHolder> holder(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return thread.submit("holder", (s, after) -> {
            LockEntry e = arbiter.entry(file);
            if (e != null) {
                arbiter.pump(e, s, after);
                arbiter.removeIfIdle(e);
            }
            for (LockInfo info : infos(file, s)) {
                return new LockHolder(info.owner(), info.clientName(), info.heldSince(), info.remainingLease(),
                        info.fencingToken(), OptionalInt.empty());
            }
            return null;
        });
    }

    /**
     * The holds of {@code namespace}, from every process, read from the lock files (this JVM's from memory), and its
     * semaphores, held permits and armed latches, read from their state files.
     */
    CompletableFuture<List<LockInfo>> list(String namespace) {
        return thread.submit("list", (s, after) -> {
            List<LockInfo> result = new ArrayList<>();
            for (String file : files.list()) {
                LockEntry e = arbiter.entry(file);
                if (e != null) {
                    arbiter.pump(e, s, after);
                    arbiter.removeIfIdle(e);
                }
                result.addAll(infos(file, s));
            }
            result.removeIf(info -> !namespace.equals(namespaceOf(info)));
            List<LockInfo> named = new ArrayList<>();
            for (LockInfo info : result) {
                named.add(new LockInfo(info.name().substring(info.name().indexOf('\u0000') + 1), info.owner(), 1,
                        info.fencingToken(), info.remainingLease(), info.waiters(), info.kind(), info.detail(),
                        info.clientName(), info.heldSince()));
            }
            named.addAll(counts.infos(s, namespace));
            return named;
        });
    }

    private static String namespaceOf(LockInfo info) {
        return info.name().substring(0, info.name().indexOf('\u0000'));
    }

    /**
     * What is held in {@code file}: this JVM's grants from memory, other processes' live hold lines from the file
     * when its OS lock is taken. Names are {@code namespace NUL name}.
     */
    private List<LockInfo> infos(String file, DirectorySection s) throws IOException {
        List<LockInfo> infos = new ArrayList<>();
        long nowMillis = System.currentTimeMillis();
        LockEntry e = arbiter.entry(file);
        LockFileRecord r;
        if (e != null && e.channel != null) {
            long now = System.nanoTime();
            for (FileGrantState h : e.holds()) {
                long deadline = h.leaseEnd();
                if (deadline != GrantState.ENDED) {
                    infos.add(info(e.namespace, e.name, h.owner(), h.token(),
                            Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - now)), h.kind.label)
                            .withHolder(h.clientName(), Optional.of(Instant.ofEpochMilli(h.sinceMillis()))));
                }
            }
            r = e.osLock != null && e.osLock.isShared() ? LockFileRecord.read(e.channel) : null;
        } else {
            r = files.heldElsewhere(file, arbiter.tracks(file), s);
        }
        if (r != null) {
            for (LockFileRecord.HoldLine h : r.holds) {
                if (!h.process().equals(process) && h.leaseEndMillis() > nowMillis && r.name != null) {
                    infos.add(info(r.namespace == null ? "" : r.namespace, r.name, h.owner(), h.token(),
                            h.leaseEndMillis() - nowMillis, h.kind())
                            .withHolder(h.clientName() == null ? LockHolder.UNKNOWN_CLIENT : h.clientName(),
                                    h.clientName() == null ? Optional.empty()
                                            : Optional.of(Instant.ofEpochMilli(h.sinceMillis()))));
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
}
