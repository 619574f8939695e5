package io.latchkey.file.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.NameArbiter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

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

    boolean hasTickets() {
        for (Waiting q : queue().values()) {
            if (q.ticket() != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The directory's state of one grant in this JVM (the engine keeps its own hold of it). Its lease end is the one
     * field shared with other threads: a renewal extends it on the caller's thread (so that renewals never wait behind
     * file I/O on the directory's thread), the directory's thread ends it ({@link NameArbiter.GrantState}).
     */
    static final class FileGrantState extends NameArbiter.GrantState {
        final Grant grant;
        final LockKind kind;
        /** The hold's client: its name, and how to tell it that the directory ended the hold (a revoke). */
        final HoldingClient client;
        /** The lease end on the wall clock, for the lock file (other processes' inspect). */
        volatile long leaseEndMillis;

        /** {@code sinceMillis}: when the hold began, epoch ms (this host's clock, which every process here shares). */
        FileGrantState(Grant grant, LockKind kind, HoldingClient client, long sinceMillis) {
            super(grant.ownerId(), grant.fencingToken(), kind.shared,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(grant.leaseMillis()), client.clientName(),
                    sinceMillis);
            this.grant = grant;
            this.kind = kind;
            this.client = client;
            leaseEndMillis = System.currentTimeMillis() + grant.leaseMillis();
        }

        @Override
        public boolean renew(long now, long leaseNanos) {
            if (!super.renew(now, leaseNanos)) {
                return false;
            }
            leaseEndMillis = System.currentTimeMillis() + TimeUnit.NANOSECONDS.toMillis(leaseNanos);
            return true;
        }
    }

    /**
     * A client of the directory, as its holds name it: one instance per lock kind of a client, shared by its holds.
     *
     * @param clientName the client's name, recorded with each hold
     * @param onLost tells the client that a hold ended without its renewal noticing first (another process
     *        force-unlocked it)
     */
    record HoldingClient(String clientName, BiConsumer<Grant, String> onLost) {
    }
}
