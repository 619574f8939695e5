package io.latchkey.file.internal;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * What this JVM knows about one lock file: its holds in this JVM (of any client), the OS lock that backs them, and
 * this JVM's waiters. Exists while the name is held or waited for in this JVM; confined to the directory's thread.
 * Invariant: {@link #osLock} is held exactly while {@link #holds} is not empty (between two steps of that thread).
 */
final class LockEntry {

    final String file;
    final Path path;
    final String namespace;
    final String name;
    /** Open while this JVM holds the file's OS lock (and only the directory thread uses it). */
    FileChannel channel;
    FileLock osLock;
    final List<Hold> holds = new ArrayList<>(2);
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Whether the head waiter could not get the OS lock: another process holds it or queues before it. */
    boolean blockedRemotely;
    ScheduledFuture<?> recheck;
    long recheckAtNanos;
    long backoffMillis = LockDirectory.MIN_RECHECK_MILLIS;
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

    boolean idle() {
        return holds.isEmpty() && waiters.isEmpty() && channel == null;
    }

    Hold find(String owner, long token) {
        for (Hold h : holds) {
            if (h.owner.equals(owner) && h.token == token) {
                return h;
            }
        }
        return null;
    }

    String exclusiveOwner() {
        for (Hold h : holds) {
            if (!h.kind.shared) {
                return h.owner;
            }
        }
        return null;
    }

    boolean allShared() {
        for (Hold h : holds) {
            if (!h.kind.shared) {
                return false;
            }
        }
        return true;
    }

    boolean hasTickets() {
        for (Waiter w : waiters) {
            if (w.ticket != 0) {
                return true;
            }
        }
        return false;
    }

    /** One hold in this JVM. */
    static final class Hold {
        final String owner;
        final LockKind kind;
        final long token;
        long expiresAtNanos;
        long leaseEndMillis;

        Hold(String owner, LockKind kind, long token, long leaseMillis) {
            this.owner = owner;
            this.kind = kind;
            this.token = token;
            extend(leaseMillis);
        }

        void extend(long leaseMillis) {
            expiresAtNanos = System.nanoTime() + leaseMillis * 1_000_000L;
            leaseEndMillis = System.currentTimeMillis() + leaseMillis;
        }
    }

    /** One pending acquire of this JVM. */
    static final class Waiter {
        final AcquireRequest request;
        final LockKind kind;
        final CompletableFuture<Grant> future;
        /** The fair queue's ticket (a directory token), 0 until queued. */
        long ticket;
        ScheduledFuture<?> timeout;

        Waiter(AcquireRequest request, LockKind kind, CompletableFuture<Grant> future) {
            this.request = request;
            this.kind = kind;
            this.future = future;
        }
    }
}
