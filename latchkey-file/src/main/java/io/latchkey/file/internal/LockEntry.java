package io.latchkey.file.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.NameArbiter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What this JVM knows about one lock file: the arbitration between this JVM's clients ({@link NameArbiter}: its
 * grants in this JVM, of any client, and the queue of this JVM's waiting owners), and the OS lock that backs the
 * grants. Exists while the name is held or waited for in this JVM; confined to the directory's thread, except a
 * grant's lease end (see {@link FileGrantState}). Invariant: {@link #osLock} is held exactly while {@link #holds()} is
 * not empty (between two steps of that thread).
 */
final class LockEntry extends NameArbiter<LockEntry.FileGrantState> {

    final String file;
    final Path path;
    final String namespace;
    final String name;
    /** Open while this JVM holds the file's OS lock (and only the directory thread uses it). */
    FileChannel channel;
    FileLock osLock;
    ScheduledFuture<?> expiry;
    long expiryAtNanos;
    /** When this JVM's wait lines were last written (epoch ms), to refresh them before they turn stale. */
    long ticketsWrittenMillis;

    LockEntry(String file, Path path, String namespace, String name) {
        this.file = file;
        this.path = path;
        this.namespace = namespace;
        this.name = name;
    }

    @Override
    public boolean isIdle() {
        return super.isIdle() && channel == null;
    }

    /** Whether a fair waiter of this JVM queues (its wait line is in the file). */
    boolean hasTickets() {
        return queue().values().stream().anyMatch(q -> q.ticket() != 0);
    }

    /**
     * The directory's state of one grant in this JVM (the engine keeps its own hold of it). Its lease end is the one
     * field shared with other threads: a renewal extends it on the caller's thread (so that renewals never wait behind
     * file I/O on the directory's thread), the directory's thread ends it ({@link NameArbiter.GrantState}).
     */
    static final class FileGrantState extends NameArbiter.GrantState {
        final Grant grant;
        /** The hold's client's ops: its kind, and how to tell it that the directory ended the hold (a revoke). */
        final FileLockOps client;

        /** A hold from now. */
        FileGrantState(Grant grant, FileLockOps client) {
            super(grant.ownerId(), grant.fencingToken(), client.kind().shared(),
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(grant.leaseMillis()), client.clientName,
                    System.currentTimeMillis());
            this.grant = grant;
            this.client = client;
        }

        /** The lease end on the wall clock (epoch ms, shared by every process of the host), for the lock file. */
        long leaseEndMillis(long nowMillis) {
            long end = leaseEnd();
            return end == ENDED ? nowMillis : nowMillis + TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
        }
    }
}
