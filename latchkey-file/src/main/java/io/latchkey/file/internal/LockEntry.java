package io.latchkey.file.internal;

import io.latchkey.core.Grant;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * What this JVM knows about one lock file: its grants in this JVM (of any client), the OS lock that backs them, and
 * the queue of this JVM's waiting owners. Exists while the name is held or waited for in this JVM; confined to the directory's thread.
 * Invariant: {@link #osLock} is held exactly while {@link #grants} is not empty (between two steps of that thread).
 */
final class LockEntry {

    final String file;
    final Path path;
    final String namespace;
    final String name;
    /** Open while this JVM holds the file's OS lock (and only the directory thread uses it). */
    FileChannel channel;
    FileLock osLock;
    final List<GrantState> grants = new ArrayList<>(2);
    /** This JVM's waiting owners in arrival order (entries of {@link LockArbiter#tryAcquire}'s queued answers). */
    final LinkedHashMap<String, Queued> queue = new LinkedHashMap<>();
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
        return grants.isEmpty() && queue.isEmpty() && channel == null;
    }

    GrantState find(String owner, long token) {
        for (GrantState h : grants) {
            if (h.owner().equals(owner) && h.token() == token) {
                return h;
            }
        }
        return null;
    }

    String exclusiveOwner() {
        for (GrantState h : grants) {
            if (!h.kind.shared) {
                return h.owner();
            }
        }
        return null;
    }

    boolean allShared() {
        for (GrantState h : grants) {
            if (!h.kind.shared) {
                return false;
            }
        }
        return true;
    }

    boolean hasTickets() {
        for (Queued q : queue.values()) {
            if (q.ticket != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The directory's state of one grant in this JVM (the engine keeps its own hold of it). Its lease end is the one
     * field shared with other threads: a renewal extends it on the caller's thread (so that renewals never wait behind
     * file I/O on the directory's thread), the directory's thread ends it. Both go through compare-and-set on {@link
     * #deadline}, and {@link #DEAD} is final: a renewal that loses the race to the end reports the hold lost, an end
     * that loses to a renewal does not happen.
     */
    static final class GrantState {
        static final long DEAD = Long.MIN_VALUE;

        final Grant grant;
        final LockKind kind;
        /** The hold's client: its name, and how to tell it that the directory ended the hold (a revoke). */
        final HoldingClient client;
        /** When the hold began, epoch ms (this host's clock: every process of the directory shares it). */
        final long sinceMillis;
        /** {@link System#nanoTime()} at which the lease ends, or {@link #DEAD}. */
        private final AtomicLong deadline = new AtomicLong();
        /** The lease end on the wall clock, for the lock file (other processes' inspect). */
        volatile long leaseEndMillis;

        GrantState(Grant grant, LockKind kind, HoldingClient client, long sinceMillis) {
            this.grant = grant;
            this.kind = kind;
            this.client = client;
            this.sinceMillis = sinceMillis;
            deadline.set(System.nanoTime() + grant.leaseMillis() * 1_000_000L);
            leaseEndMillis = System.currentTimeMillis() + grant.leaseMillis();
        }

        String owner() {
            return grant.ownerId();
        }

        long token() {
            return grant.fencingToken();
        }

        /** The lease end ({@link System#nanoTime()}), or {@link #DEAD}. */
        long deadline() {
            return deadline.get();
        }

        /** Extends the lease to {@code leaseMillis} from now unless it already ended; any thread. */
        boolean renew(long leaseMillis) {
            while (true) {
                long d = deadline.get();
                long now = System.nanoTime();
                if (d == DEAD || d - now <= 0) {
                    return false;
                }
                if (deadline.compareAndSet(d, now + leaseMillis * 1_000_000L)) {
                    leaseEndMillis = System.currentTimeMillis() + leaseMillis;
                    return true;
                }
            }
        }

        /** Ends the hold if its lease ran out by {@code now}; whether it is over. */
        boolean expire(long now) {
            while (true) {
                long d = deadline.get();
                if (d == DEAD) {
                    return true;
                }
                if (d - now > 0) {
                    return false;
                }
                if (deadline.compareAndSet(d, DEAD)) {
                    return true;
                }
            }
        }

        /** Ends the hold whatever its lease. */
        void end() {
            deadline.set(DEAD);
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

    /**
     * One waiting owner's entry in the queue of this JVM.
     *
     * @param kind the kind it waits for
     * @param ticket its place in the fair queue across processes (a directory token, written as a wait line), or 0
     */
    record Queued(LockKind kind, long ticket) {
    }
}
