package io.latchkey.file.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.file.internal.LockEntry.GrantState;
import io.latchkey.file.internal.LockEntry.Waiter;
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
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arbitration between this JVM's clients of one lock directory, in memory (as {@code mem://}'s server does): one
 * {@link LockEntry} per name held or waited for in this JVM, its grants and its FIFO of waiters; a waiter is granted
 * when it is compatible with the grants (shared with shared, a downgrade for the write holder) and this JVM holds or
 * gets the file's OS lock ({@link LockFiles}). Also the per-name timers: a grant's lease end, and the re-check of
 * waiters blocked by another process (20 ms doubling to {@value #MAX_RECHECK_MILLIS} ms, or a directory watch event).
 * Confined to the directory's thread, except {@link #renew}, which extends leases on the caller's thread.
 */
final class LockArbiter {
    private static final Logger log = LoggerFactory.getLogger(LockArbiter.class);

    static final long MIN_RECHECK_MILLIS = 20;
    static final long MAX_RECHECK_MILLIS = 200;
    static final long TICKET_REFRESH_MILLIS = 500;

    private final Path dir;
    private final DirectoryThread thread;
    private final LockFiles files;
    // confined to the directory's thread
    private final Map<String, LockEntry> entries = new HashMap<>();
    /** Every live grant of this JVM by {@link #grantKey}: renewals find them here without a trip to the thread. */
    private final ConcurrentHashMap<String, GrantState> live = new ConcurrentHashMap<>();

    LockArbiter(Path dir, DirectoryThread thread, LockFiles files) {
        this.dir = dir;
        this.thread = thread;
        this.files = files;
    }

    /** The entry of {@code file}, if this JVM holds or waits for it; on the directory's thread. */
    LockEntry entry(String file) {
        return entries.get(file);
    }

    /** Whether this JVM holds or waits for {@code file}; on the directory's thread. */
    boolean tracks(String file) {
        return entries.containsKey(file);
    }

    // ----------------------------------------------------------------------------------------------- operations

    CompletableFuture<Grant> acquire(String namespace, LockKind kind, AcquireRequest request,
                                     BiConsumer<Grant, String> onLost) {
        CompletableFuture<Grant> f = new CompletableFuture<>();
        String file = FileNames.lockFile(namespace, request.name());
        CompletableFuture<Void> queued = thread.submit("acquire", (s, after) -> {
            if (request.isCancelled()) {
                after.add(() -> f.complete(null));
                return null;
            }
            LockEntry e = entries.computeIfAbsent(file, k -> new LockEntry(k, dir.resolve(k), namespace,
                    request.name()));
            Waiter w = new Waiter(request, kind, f, onLost);
            if (kind.shared && request.ownerId().equals(e.exclusiveOwner())) {
                // downgrade: the write holder takes the read lock at once, whoever queues
                grant(e, w, s, after);
                files.sync(e, s);
                return null;
            }
            e.waiters.add(w);
            try {
                pump(e, s, after);
            } catch (IOException | RuntimeException ex) {
                e.waiters.remove(w);
                removeIfIdle(e);
                throw ex;
            }
            if (e.waiters.contains(w)) {
                if (request.isExpired()) {
                    e.waiters.remove(w);
                    after.add(() -> f.complete(null));
                    pump(e, s, after);
                } else {
                    if (kind.fair && w.ticket == 0) {
                        w.ticket = s.nextToken();
                        files.sync(e, s);
                    }
                    if (request.deadlineNanos() != AcquireRequest.NO_DEADLINE) {
                        w.timeout = thread.schedule(() -> drop(file, w), request.remainingNanos(),
                                TimeUnit.NANOSECONDS);
                    }
                    request.cancelled().thenRun(() -> drop(file, w));
                    arm(e);
                }
            }
            removeIfIdle(e);
            return null;
        });
        queued.whenComplete((v, t) -> {
            if (t != null) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    CompletableFuture<Boolean> release(String namespace, Grant grant) {
        String file = FileNames.lockFile(namespace, grant.name());
        return thread.submit("release", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e == null) {
                return false;
            }
            expireGrants(e);
            GrantState h = e.find(grant.ownerId(), grant.fencingToken());
            if (h == null) {
                pump(e, s, after);
                removeIfIdle(e);
                return false;
            }
            removeGrant(e, h);
            pump(e, s, after);
            removeIfIdle(e);
            return true;
        });
    }

    CompletableFuture<Grant> handOff(String namespace, Grant from, AcquireRequest request,
                                     BiConsumer<Grant, String> onLost) {
        String file = FileNames.lockFile(namespace, from.name());
        return thread.submit("handOff", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null) {
                expireGrants(e);
            }
            GrantState h = e == null ? null : e.find(from.ownerId(), from.fencingToken());
            if (h == null || h.kind.shared || request.isCancelled()) {
                if (e != null) {
                    pump(e, s, after);
                    removeIfIdle(e);
                }
                return null;
            }
            // The OS lock stays: the lock is never free in between.
            long requestedAt = request.time().nanoTime();
            long token = s.nextToken();
            removeGrant(e, h);
            Grant g = new Grant(request, token, requestedAt, null);
            addGrant(e, new GrantState(g, h.kind, onLost));
            files.sync(e, s);
            arm(e);
            return g;
        });
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
            GrantState h = live.get(grantKey(file, g.ownerId(), g.fencingToken()));
            if (h == null || !h.renew(g.leaseMillis())) {
                if (h != null) {
                    log.debug("renewal of {} came after its lease had ended in {}", g, dir);
                }
                lost.add(g);
            } else {
                touched.add(file);
            }
        }
        if (!touched.isEmpty()) {
            thread.execute(() -> thread.runNow("renew", (s, after) -> {
                for (String file : touched) {
                    LockEntry e = entries.get(file);
                    if (e == null) {
                        continue;
                    }
                    if (files.revoked(e)) {
                        log.info("lock '{}' in {} was force-unlocked by another process", e.name, dir);
                        for (GrantState h : e.grants) {
                            after.add(() -> h.onLost.accept(h.grant, "force-unlocked by another process"));
                        }
                        clearGrants(e);
                    }
                    pump(e, s, after);
                    files.sync(e, s);
                    removeIfIdle(e);
                }
                return null;
            }));
        }
        return CompletableFuture.completedFuture(lost);
    }

    // ------------------------------------------------------------------------------------------ the arbitration

    /**
     * Brings {@code e} up to date: ends expired grants, matches the OS lock to the grants, grants waiters in FIFO
     * order while the head is compatible and can get the OS lock, writes the file, arms the timers.
     */
    void pump(LockEntry e, DirectorySection s, List<Runnable> after) throws IOException {
        expireGrants(e);
        boolean changed = files.matchOsLock(e, s);
        e.blockedRemotely = false;
        Waiter w;
        while ((w = e.waiters.peek()) != null) {
            if (w.future.isDone() || w.request.isCancelled()) {
                e.waiters.poll();
                cancelTimeout(w);
                Waiter dropped = w;
                after.add(() -> dropped.future.complete(null));
                changed |= w.ticket != 0;
                continue;
            }
            if (!compatible(e, w)) {
                break;
            }
            if (e.grants.isEmpty()) {
                if (w.kind.fair && files.earlierTicketElsewhere(e, w, s)) {
                    e.blockedRemotely = true;
                    break;
                }
                if (!files.lock(e, w.kind.shared, s)) {
                    e.blockedRemotely = true;
                    break;
                }
            }
            e.waiters.poll();
            cancelTimeout(w);
            grant(e, w, s, after);
            changed = true;
        }
        if (!e.waiters.isEmpty() && e.hasTickets()
                && System.currentTimeMillis() - e.ticketsWrittenMillis >= TICKET_REFRESH_MILLIS) {
            changed = true;
        }
        if (changed) {
            files.sync(e, s);
        }
        arm(e);
    }

    private static boolean compatible(LockEntry e, Waiter w) {
        if (e.grants.isEmpty()) {
            return true;
        }
        if (!w.kind.shared) {
            return false;
        }
        String exclusive = e.exclusiveOwner();
        return exclusive == null || exclusive.equals(w.request.ownerId());
    }

    private void grant(LockEntry e, Waiter w, DirectorySection s, List<Runnable> after) throws IOException {
        long requestedAt = w.request.time().nanoTime();
        long token = s.nextToken();
        Grant g = new Grant(w.request, token, requestedAt, null);
        addGrant(e, new GrantState(g, w.kind, w.onLost));
        e.backoffMillis = MIN_RECHECK_MILLIS;
        after.add(() -> w.future.complete(g));
    }

    private static String grantKey(String file, String owner, long token) {
        return file + '\u0000' + owner + '\u0000' + token;
    }

    private void addGrant(LockEntry e, GrantState h) {
        e.grants.add(h);
        live.put(grantKey(e.file, h.owner(), h.token()), h);
    }

    private void removeGrant(LockEntry e, GrantState h) {
        h.end();
        e.grants.remove(h);
        live.remove(grantKey(e.file, h.owner(), h.token()), h);
    }

    /** Ends every grant of {@code e} in this JVM (a force-unlock, a revoke, the directory's close). */
    void clearGrants(LockEntry e) {
        for (GrantState h : new ArrayList<>(e.grants)) {
            removeGrant(e, h);
        }
    }

    /** Ends the grants whose lease ran out (renewals race with this through {@link GrantState#expire}). */
    private void expireGrants(LockEntry e) {
        long now = System.nanoTime();
        for (GrantState h : new ArrayList<>(e.grants)) {
            if (h.expire(now)) {
                removeGrant(e, h);
            }
        }
    }

    /** Forgets {@code e} once nobody of this JVM holds or waits for it. */
    void removeIfIdle(LockEntry e) {
        if (e.idle() && entries.get(e.file) == e) {
            DirectoryThread.cancel(e.expiry);
            DirectoryThread.cancel(e.recheck);
            entries.remove(e.file);
        }
    }

    // ------------------------------------------------------------------------------------------- timers, events

    /** Arms the entry's expiry timer (earliest grant) and, while waiters wait, its re-check timer. */
    private void arm(LockEntry e) {
        long earliest = 0;
        boolean any = false;
        for (GrantState h : e.grants) {
            long deadline = h.deadline();
            if (deadline != GrantState.DEAD && (!any || deadline - earliest < 0)) {
                earliest = deadline;
                any = true;
            }
        }
        if (!any) {
            DirectoryThread.cancel(e.expiry);
            e.expiry = null;
        } else if (e.expiry == null || e.expiryAtNanos != earliest) {
            DirectoryThread.cancel(e.expiry);
            e.expiryAtNanos = earliest;
            e.expiry = thread.schedule(() -> onTimer(e.file), Math.max(0, earliest - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }
        long delayMillis;
        if (e.waiters.isEmpty()) {
            delayMillis = -1;
        } else if (e.blockedRemotely) {
            delayMillis = e.backoffMillis;
        } else if (e.hasTickets()) {
            delayMillis = TICKET_REFRESH_MILLIS;
        } else {
            delayMillis = -1; // blocked by a grant of this JVM: its release or expiry pumps
        }
        if (delayMillis < 0) {
            DirectoryThread.cancel(e.recheck);
            e.recheck = null;
        } else if (e.recheck == null || e.recheck.isDone()) {
            e.recheck = thread.schedule(() -> {
                e.backoffMillis = Math.min(MAX_RECHECK_MILLIS, e.backoffMillis * 2);
                onTimer(e.file);
            }, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void onTimer(String file) {
        thread.runNow("re-check", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null) {
                e.recheck = null;
                e.expiry = null;
                pump(e, s, after);
                removeIfIdle(e);
            }
            return null;
        });
    }

    /** A lock file changed (another process released, queued or wrote it); on the directory's thread. */
    void onFileEvent(String file) {
        LockEntry e = entries.get(file);
        if (e != null && !e.waiters.isEmpty() && e.blockedRemotely) {
            e.backoffMillis = MIN_RECHECK_MILLIS;
            DirectoryThread.cancel(e.recheck);
            e.recheck = null;
            thread.runNow("wake-up", (s, after) -> {
                pump(e, s, after);
                removeIfIdle(e);
                return null;
            });
        }
    }

    /** Events were lost: every name with waiters re-checks; on the directory's thread. */
    void onOverflow() {
        for (LockEntry e : new ArrayList<>(entries.values())) {
            if (!e.waiters.isEmpty()) {
                onTimer(e.file);
            }
        }
    }

    private void drop(String file, Waiter w) {
        thread.execute(() -> thread.runNow("cancel", (s, after) -> {
            LockEntry e = entries.get(file);
            if (e != null && e.waiters.remove(w)) {
                cancelTimeout(w);
                after.add(() -> w.future.complete(null));
                if (w.ticket != 0) {
                    files.sync(e, s);
                }
                pump(e, s, after); // the dropped waiter may have blocked compatible ones behind it
                removeIfIdle(e);
            }
            return null;
        }));
    }

    /**
     * The directory closes: every waiter fails with {@code closed}, every grant of this JVM ends and its OS lock is
     * released (as if the process had exited). On the directory's thread.
     */
    void closeAll(LockUnavailableException closed, DirectorySection s, List<Runnable> after) {
        for (LockEntry e : new ArrayList<>(entries.values())) {
            for (Waiter w : e.waiters) {
                cancelTimeout(w);
                after.add(() -> w.future.completeExceptionally(closed));
            }
            e.waiters.clear();
            clearGrants(e);
            try {
                pump(e, s, after);
            } catch (IOException | RuntimeException ex) {
                log.debug("releasing {} at close failed", e.path, ex);
                LockFiles.closeChannel(e);
            }
            DirectoryThread.cancel(e.expiry);
            DirectoryThread.cancel(e.recheck);
        }
        entries.clear();
    }

    private static void cancelTimeout(Waiter w) {
        DirectoryThread.cancel(w.timeout);
        w.timeout = null;
    }
}
