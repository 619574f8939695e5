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
            LockEntry e = arbiter.refresh(file, s, after);
            if (e != null && (!e.holds().isEmpty() || e.channel != null)) {
                return !e.holds().isEmpty();
            }
            return files.heldElsewhere(file, arbiter.entry(file) != null, s) != null;
        });
    }

    CompletableFuture<Boolean> forceUnlock(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return thread.submit("forceUnlock", (s, after) -> {
            LockEntry e = arbiter.refresh(file, s, after);
            boolean held = e != null && !arbiter.clearGrants(e).isEmpty();
            if (held) {
                arbiter.refresh(file, s, after);
            }
            if (e != null && e.channel != null) {
                return held;
            }
            LockFileRecord other = files.heldElsewhere(file, arbiter.entry(file) != null, s);
            if (other != null) {
                files.requestRevoke(file, other);
            }
            return held || other != null;
        });
    }

    /** Who holds the lock: the first hold, this JVM's from memory, another process's from the lock file. */
    CompletableFuture<LockHolder> holder(String namespace, String name) {
        String file = FileNames.lockFile(namespace, name);
        return thread.submit("holder", (s, after) -> {
            arbiter.refresh(file, s, after);
            for (LockInfo info : infos(file, null, s)) {
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
                arbiter.refresh(file, s, after);
                result.addAll(infos(file, namespace, s));
            }
            result.addAll(counts.infos(s, namespace));
            return result;
        });
    }

    /**
     * What is held in {@code file} of {@code namespace} (any, if {@code null}): this JVM's grants from memory, other
     * processes' live hold lines from the file when its OS lock is taken.
     */
    private List<LockInfo> infos(String file, String namespace, DirectorySection s) throws IOException {
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
                            h.clientName(), Optional.of(Instant.ofEpochMilli(h.sinceMillis()))));
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
                        h.clientName() == null ? LockHolder.UNKNOWN_CLIENT : h.clientName(),
                        h.clientName() == null ? Optional.empty()
                                : Optional.of(Instant.ofEpochMilli(h.sinceMillis()))));
            }
        }
        return infos;
    }

    private static LockInfo info(String name, String owner, long token, long leftMillis, String kind, String client,
                                 Optional<Instant> since) {
        return new LockInfo(name, owner, 1, OptionalLong.of(token), Optional.of(Duration.ofMillis(leftMillis)),
                OptionalInt.empty(), kind, "").withHolder(client, since);
    }
}
