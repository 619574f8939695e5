package io.latchkey.file.internal;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.ArbitratedLockOps.Kind;
import io.latchkey.core.Grant;
import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.core.NameArbiter.Waiting;
import io.latchkey.core.RemoteLockOps.Attempt;
import io.latchkey.file.internal.LockEntry.FileGrantState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arbitration between this JVM's clients of one lock directory: one {@link LockEntry} per name held or waited for in
 * this JVM. An attempt is granted when the entry lets its owner take the name and this JVM holds or gets the file's
 * OS lock ({@link LockFiles}). Every change in this JVM that can let a waiter in tells the file's subscribers
 * ({@code changed}); the directory watcher tells them of other processes' changes. Each entry has a timer at its
 * earliest lease end: a hold whose lease ran out (a fixed lease, or a watchdog lease nobody renews, as after its
 * client closed) must free the OS lock for other processes, which cannot end it and are not woken by anything else.
 * Confined to the directory's thread, except {@link #renew}, which extends leases on the caller's thread.
 */
final class LockArbiter {
    private static final Logger log = LoggerFactory.getLogger(LockArbiter.class);

    /** The engine's back-off for an owner blocked by another process (whose SIGKILL changes no file). */
    static final long MIN_RECHECK_MILLIS = 20;
    static final long MAX_RECHECK_MILLIS = 200;
    /** How often the wait lines of this JVM's fair waiters are rewritten (another process ignores stale ones). */
    static final long TICKET_REFRESH_MILLIS = 500;
    /** The re-check hint of an owner blocked in this JVM by a grant without a lease end or by a queue ahead. */
    static final long LOCAL_RECHECK_MILLIS = 1_000;

    private final Path dir;
    private final DirectoryThread thread;
    private final LockFiles files;
    /** Tells the subscribers of a lock file (outside the directory section). */
    private final Consumer<String> changed;
    // confined to the directory's thread
    private final Map<String, LockEntry> entries = new HashMap<>();
    /** Every live grant of this JVM by {@link #grantKey}: renewals find them here without a trip to the thread. */
    private final ConcurrentHashMap<String, FileGrantState> live = new ConcurrentHashMap<>();

    LockArbiter(Path dir, DirectoryThread thread, LockFiles files, Consumer<String> changed) {
        this.dir = dir;
        this.thread = thread;
        this.files = files;
        this.changed = changed;
    }

    /** The entry of {@code file}, if this JVM holds or waits for it; on the directory's thread. */
    LockEntry entry(String file) {
        return entries.get(file);
    }

    /** The entry of {@code file} brought up to date ({@link #settle}), or {@code null}. */
    LockEntry refresh(String file, DirectorySection s, List<Runnable> after) throws IOException {
        LockEntry e = entries.get(file);
        if (e != null) {
            settle(e, s, after);
        }
        return e;
    }

    /** One attempt of {@code request}; the answer's entry is the owner. */
    Attempt attempt(FileLockOps ops, AcquireRequest request, DirectorySection s, List<Runnable> after)
            throws IOException {
        LockEntry e = entries.computeIfAbsent(FileNames.lockFile(ops.namespace, request.name()),
                k -> new LockEntry(k, dir.resolve(k), ops.namespace, request.name()));
        try {
            return attempt(e, ops, request, s, after);
        } finally {
            removeIfIdle(e);
        }
    }

    private Attempt attempt(LockEntry e, FileLockOps ops, AcquireRequest request, DirectorySection s,
                            List<Runnable> after) throws IOException {
        pump(e, s, after);
        Kind kind = ops.kind();
        String owner = request.ownerId();
        Waiting q = e.waiting(owner);
        boolean remote = false;
        if (e.mayTake(owner, kind.shared())) {
            if (e.holds().isEmpty()) {
                remote = kind.fair() && files.earlierTicketElsewhere(e, q == null ? 0 : q.ticket(), s)
                        || !files.lock(e, kind.shared(), s);
            }
            if (!remote) {
                FileGrantState h = newGrant(e, ops, request, s);
                boolean othersQueue = e.grant(h);
                files.sync(e, s);
                arm(e);
                if (othersQueue) {
                    after.add(() -> changed.accept(e.file)); // readers behind may come in as well
                }
                return Attempt.granted(h.grant);
            }
        }
        if (q == null) {
            q = e.enqueue(owner, new Waiting(kind.shared(), kind.fair() ? s.nextToken() : 0));
            if (q.ticket() != 0) {
                files.sync(e, s);
            }
        } else if (e.hasTickets() && System.currentTimeMillis() - e.ticketsWrittenMillis >= TICKET_REFRESH_MILLIS) {
            files.sync(e, s); // keeps this JVM's wait lines live for other processes
        }
        Attempt queued = Attempt.queued(owner, recheckNanos(e, remote));
        return remote ? queued.withBackoff(TimeUnit.MILLISECONDS.toNanos(MIN_RECHECK_MILLIS)) : queued;
    }

    /** When a queued owner looks again without a push (see the constants); wait lines are kept live this way. */
    private static long recheckNanos(LockEntry e, boolean remote) {
        long now = System.nanoTime();
        long millis;
        if (remote) {
            millis = MAX_RECHECK_MILLIS;
        } else {
            long d = e.earliestLeaseEnd();
            millis = d == GrantState.ENDED ? LOCAL_RECHECK_MILLIS
                    : Math.min(LOCAL_RECHECK_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(d - now) + 1));
        }
        if (e.hasTickets()) {
            millis = Math.min(millis, TICKET_REFRESH_MILLIS);
        }
        return TimeUnit.MILLISECONDS.toNanos(millis);
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
            FileGrantState h = live.get(grantKey(file, g.ownerId(), g.fencingToken()));
            if (h == null || !h.renew(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(g.leaseMillis()))) {
                if (h != null) {
                    log.debug("renewal of {} came after its lease had ended in {}", g, dir);
                }
                lost.add(g);
            } else {
                touched.add(file);
            }
        }
        if (!touched.isEmpty()) {
            thread.submit("renew", (s, after) -> {
                for (String file : touched) {
                    LockEntry e = entries.get(file);
                    if (e == null) {
                        continue;
                    }
                    if (files.revoked(e)) {
                        log.info("lock '{}' in {} was force-unlocked by another process", e.name, dir);
                        for (FileGrantState h : clearGrants(e)) {
                            after.add(() -> h.client.onLost.accept(h.grant, "force-unlocked by another process"));
                        }
                    }
                    pump(e, s, after);
                    files.sync(e, s);
                    removeIfIdle(e);
                }
                return null;
            });
        }
        return CompletableFuture.completedFuture(lost);
    }

    /**
     * Brings {@code e} up to date: ends expired grants, matches the OS lock to them, rewrites the file if that changed
     * it or wait lines are due, arms the lease-end timer; tells subscribers when the lock was freed or turned shared.
     */
    void pump(LockEntry e, DirectorySection s, List<Runnable> after) throws IOException {
        expireGrants(e);
        boolean changed = files.matchOsLock(e, s);
        if (changed && !e.queue().isEmpty()) {
            after.add(() -> this.changed.accept(e.file));
        }
        if (!e.queue().isEmpty() && e.hasTickets()
                && System.currentTimeMillis() - e.ticketsWrittenMillis >= TICKET_REFRESH_MILLIS) {
            changed = true;
        }
        if (changed) {
            files.sync(e, s);
        }
        arm(e);
    }

    /** {@link #pump}, then forgets {@code e} if idle. */
    void settle(LockEntry e, DirectorySection s, List<Runnable> after) throws IOException {
        pump(e, s, after);
        removeIfIdle(e);
    }

    /** {@code g}'s state in {@code e} once the expired grants ended, or {@code null}. */
    FileGrantState find(LockEntry e, Grant g) {
        expireGrants(e);
        return e.find(g.ownerId(), g.fencingToken());
    }

    /** A new grant of {@code request} with the directory's next token, known to renewals ({@link #live}). */
    FileGrantState newGrant(LockEntry e, FileLockOps ops, AcquireRequest request, DirectorySection s)
            throws IOException {
        FileGrantState h = new FileGrantState(new Grant(request, s.nextToken(), request.time().nanoTime(), null), ops);
        live.put(grantKey(e.file, h.owner(), h.token()), h);
        return h;
    }

    private static String grantKey(String file, String owner, long token) {
        return file + '\u0000' + owner + '\u0000' + token;
    }

    void forget(LockEntry e, List<FileGrantState> ended) {
        for (FileGrantState h : ended) {
            live.remove(grantKey(e.file, h.owner(), h.token()), h);
        }
    }

    /** Ends every grant of {@code e} in this JVM (a force-unlock, a revoke, the directory's close); returns them. */
    List<FileGrantState> clearGrants(LockEntry e) {
        List<FileGrantState> ended = e.clear();
        forget(e, ended);
        return ended;
    }

    /** Ends the grants whose lease ran out (renewals race with this through {@link GrantState#expire}). */
    private void expireGrants(LockEntry e) {
        forget(e, e.expire(System.nanoTime()));
    }

    /** Forgets {@code e} once nobody of this JVM holds or waits for it. */
    void removeIfIdle(LockEntry e) {
        if (e.isIdle() && entries.get(e.file) == e) {
            DirectoryThread.cancel(e.expiry);
            entries.remove(e.file);
        }
    }

    /** Arms the entry's lease-end timer (earliest grant). */
    void arm(LockEntry e) {
        long earliest = e.earliestLeaseEnd();
        if (earliest == GrantState.ENDED) {
            DirectoryThread.cancel(e.expiry);
            e.expiry = null;
        } else if (e.expiry == null || e.expiryAtNanos != earliest) {
            DirectoryThread.cancel(e.expiry);
            e.expiryAtNanos = earliest;
            e.expiry = thread.schedule(() -> onExpiry(e.file), Math.max(0, earliest - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void onExpiry(String file) {
        thread.runNow("lease end", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null) {
                e.expiry = null;
                settle(e, s, after);
            }
            return null;
        });
    }

    /** The directory closes: this JVM's queue entries go, its grants end and their OS locks are released. */
    void closeAll(DirectorySection s, List<Runnable> after) {
        for (LockEntry e : new ArrayList<>(entries.values())) {
            e.clearQueue();
            clearGrants(e);
            try {
                pump(e, s, after);
            } catch (IOException | RuntimeException ex) {
                log.debug("releasing {} at close failed", e.path, ex);
                LockFiles.closeChannel(e);
            }
            DirectoryThread.cancel(e.expiry);
        }
        entries.clear();
    }
}
