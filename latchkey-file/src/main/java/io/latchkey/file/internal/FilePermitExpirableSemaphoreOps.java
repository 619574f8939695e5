package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RetriedRemoval;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the file permit-expirable semaphore: the state file {@code lk-<hash>.permits} holds the total
 * number of permits and one {@code lease} line per held permit (permit id, fencing token, lease end on the wall
 * clock, watchdog or fixed), read and rewritten inside the directory section.
 *
 * <h2>Leases and crashes</h2>
 * A lease ends at its end on the wall clock ({@link System#currentTimeMillis()}), which every process of the host
 * shares: a permit whose lease ended is dropped whenever the file is read, by any process, so nobody has to be alive
 * to end it. A fixed lease ends {@code leaseMillis} after the write that took it; a watchdog lease is extended by
 * the engine's watchdog ({@link #renew}: one section per batch, the exact permit — id and token — only), so the
 * permits of a process that died (SIGKILL included) return one watchdog timeout after its last renewal. A wall
 * clock stepped forward ends leases early, one stepped back ends them late; the lock files' lease ends make the same
 * assumption. An attempt that finds no permit answers when the earliest lease ends, and the engine looks again then
 * (nobody writes the file when a lease runs out).
 *
 * <h2>Tokens</h2>
 * A grant's fencing token is the directory's next token ({@link DirectorySection#nextToken()}, persisted in
 * {@code latchkey.state}): strictly increasing across every name, process and restart, so per name too.
 *
 * <p>The file stays while the semaphore is set (one file per semaphore ever set); waiters write nothing.
 */
public final class FilePermitExpirableSemaphoreOps extends FileCountOps {

    static final long RELEASE_RETRY_MILLIS = 1_000;
    private static final Logger log = LoggerFactory.getLogger(FilePermitExpirableSemaphoreOps.class);

    private final RetriedRemoval releases;

    public FilePermitExpirableSemaphoreOps(LockDirectory directory, String namespace) {
        super(directory, namespace, CountKind.PERMITS);
        this.releases = new RetriedRemoval(directory::later, () -> !directory.isClosed(), RELEASE_RETRY_MILLIS,
                RELEASE_RETRY_MILLIS, log);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return change("read", name, (loaded, s) -> loaded.record == null ? 0 : clamp(loaded.record.available()));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return setCountOnce(name, permits);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return addToCount(name, delta);
    }

    @Override
    public boolean renewsPermits() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        long sentAt = System.nanoTime();
        return change("take a permit of", name, (loaded, s) -> {
            CountRecord r = loaded.record;
            if (r == null) {
                return Attempt.busy();
            }
            CountRecord.Lease same = r.lease(permitId);
            if (same != null) {
                r.leases.remove(same); // an id is taken once; a second take replaces the first
            }
            if (r.count - r.leases.size() <= 0) {
                if (same != null) {
                    r.leases.add(same);
                }
                // look again when the earliest lease ends (on the wall clock, as the leases)
                return r.leases.isEmpty() ? Attempt.busy() : Attempt.busy(
                        TimeUnit.MILLISECONDS.toNanos(Math.max(0, r.earliestLeaseEnd() - loaded.nowMillis) + 1));
            }
            long token = s.nextToken();
            long start = System.currentTimeMillis();
            r.leases.add(new CountRecord.Lease(permitId, token, start + leaseMillis, watchdog));
            loaded.changed = true;
            return Attempt.granted(new Grant(name, permitId, token, leaseMillis, watchdog, sentAt, null));
        });
    }

    /**
     * Removes the permit's lease line. If that fails while the directory is open (an I/O error such as a full disk:
     * the new text cannot be written), the caller's future fails and the removal is retried every
     * {@value #RELEASE_RETRY_MILLIS} ms until it goes through or the directory closes, so that a permit released
     * by the engine (or given back for an abandoned attempt) is not held until its lease ends. Retrying is safe: the
     * id names one grant, and a line already gone is a no-op.
     */
    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        return releases.release("release of permit " + permitId + " of '" + name + "' in " + directory.path(),
                () -> removeLease(name, permitId));
    }

    private CompletableFuture<Boolean> removeLease(String name, String permitId) {
        return change("release a permit of", name, (loaded, s) -> {
            CountRecord.Lease lease = loaded.record == null ? null : loaded.record.lease(permitId);
            if (lease == null) {
                return false;
            }
            loaded.record.leases.remove(lease);
            loaded.changed = true;
            loaded.wake = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        return change("update a permit's lease of", name, (loaded, s) -> {
            CountRecord.Lease lease = loaded.record == null ? null : loaded.record.lease(permitId);
            if (lease == null) {
                return false;
            }
            List<CountRecord.Lease> leases = loaded.record.leases;
            leases.set(leases.indexOf(lease), new CountRecord.Lease(permitId, lease.token(),
                    System.currentTimeMillis() + leaseMillis, false));
            loaded.changed = true;
            loaded.wake = true; // a shorter lease: waiters look again for its end
            return true;
        });
    }

    /**
     * Extends every watchdog permit among {@code grants} still held under its id and token to its lease from now:
     * one task and one section for the batch, one read and at most one write per semaphore.
     */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        Map<String, List<Grant>> byName = new LinkedHashMap<>();
        for (Grant g : grants) {
            byName.computeIfAbsent(g.name(), n -> new java.util.ArrayList<>()).add(g);
        }
        return directory.run("renew permits", (s, after) -> {
            Set<Grant> lost = new HashSet<>();
            for (Map.Entry<String, List<Grant>> e : byName.entrySet()) {
                CountFiles.Loaded loaded = directory.counts().load(s, namespace, e.getKey(), kind);
                long now = System.currentTimeMillis();
                for (Grant g : e.getValue()) {
                    CountRecord.Lease lease = loaded.record == null ? null : loaded.record.lease(g.ownerId());
                    if (lease == null || lease.token() != g.fencingToken() || !lease.watchdog()) {
                        lost.add(g);
                        continue;
                    }
                    List<CountRecord.Lease> leases = loaded.record.leases;
                    leases.set(leases.indexOf(lease), new CountRecord.Lease(lease.permitId(), lease.token(),
                            now + g.leaseMillis(), true));
                    loaded.changed = true;
                }
                directory.counts().store(s, loaded, after);
            }
            return lost;
        });
    }
}
