package io.latchkey.jdbc;

import io.latchkey.core.CountKind;
import io.latchkey.core.Grant;
import io.latchkey.core.RetriedRemoval;
import java.sql.ResultSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the SQL permit-expirable semaphore: the total permits in the counts table (kind
 * {@code permits}) and one row per leased permit in the permits table (permit id, fencing token, lease end on the
 * database's clock, watchdog or fixed).
 *
 * <p>Taking a permit is one transaction: lock the semaphore's counts row ({@code SELECT … FOR UPDATE}, which orders
 * its takers), delete its ended permits, count the live ones, and if fewer than the total insert the new permit with
 * the next value of the token sequence. So two clients never both take the last permit, and a permit's token is above
 * every earlier permit's of the semaphore (drawn under the row lock, after the previous taker committed).
 *
 * <p>A permit whose lease ended counts for nothing, whoever is alive: a crashed client's watchdog permits return one
 * watchdog timeout after its last renewal ({@link #renew}). A lease's end publishes nothing: a refused attempt answers
 * busy until the earliest lease end it read. A release that fails while the client is open is retried every
 * {@value #RELEASE_RETRY_MILLIS} ms until the database answers (deleting a deleted row is a no-op), so that a released
 * permit is not held until its lease ends.
 */
final class JdbcPermitExpirableSemaphoreOps extends JdbcCountOps {

    static final long RELEASE_RETRY_MILLIS = 1_000;
    private static final Logger log = LoggerFactory.getLogger(JdbcPermitExpirableSemaphoreOps.class);

    private final RetriedRemoval releases;

    JdbcPermitExpirableSemaphoreOps(Tables t) {
        super(t, CountKind.PERMITS);
        // a retry the closing client's timer refuses ends there: the permit ends with its lease
        this.releases = new RetriedRemoval((task, ms) -> runner.timer().schedule(task, ms, TimeUnit.MILLISECONDS),
                () -> !runner.isClosed(), RELEASE_RETRY_MILLIS, RELEASE_RETRY_MILLIS, log);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        String key = rowKey(name);
        return run("read the permits of", name, c -> {
            Long total = count(c, sql.selectCount, key);
            if (total == null) {
                return 0;
            }
            return clamp(total - runner.queryLong(c, sql.livePermits, key));
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return setCountOnce(name, permits);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return addToCount("add permits to", name, delta);
    }

    @Override
    public boolean renewsPermits() {
        return true;
    }

    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        startReaper("ended permits", c -> execute(c, sql.reapPermits));
        long sentAt = System.nanoTime();
        String key = rowKey(name);
        return run("take a permit of", name, c -> inTransaction(c, tx -> {
            Long total = count(tx, sql.selectCountForUpdate, key);
            if (total == null) {
                return Attempt.busy(); // never set: no permits
            }
            execute(tx, sql.deleteExpiredPermits, key);
            try (var ps = runner.prepare(tx, sql.livePermitsExcept, key, permitId); ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getLong(1) >= total) {
                    long soonest = rs.getLong(2); // a lease end publishes nothing: look again then
                    return rs.wasNull() ? Attempt.busy()
                            : Attempt.busy(TimeUnit.MILLISECONDS.toNanos(Math.max(1, soonest + 1)));
                }
            }
            execute(tx, sql.deletePermit, key, permitId); // an id is taken once; a second take replaces the first
            long token = runner.queryLong(tx, sql.nextTokenQuery);
            execute(tx, sql.insertPermit, key, permitId, token, leaseMillis, watchdog);
            return Attempt.granted(new Grant(name, permitId, token, leaseMillis, watchdog, sentAt, null));
        }));
    }

    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        return releases.release("release of permit " + permitId + " of '" + name + "' on " + runner.server(),
                () -> delete(name, permitId));
    }

    private CompletableFuture<Boolean> delete(String name, String permitId) {
        String key = rowKey(name);
        return run("release a permit of", name, c -> {
            if (execute(c, sql.releaseLivePermit, key, permitId) == 1) {
                wakeups.changed(c, wakeKey(name));
                return true;
            }
            execute(c, sql.deletePermit, key, permitId); // its lease ended: the row counts for nothing; tidy it
            return false;
        });
    }

    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        String key = rowKey(name);
        return run("update a permit's lease of", name, c -> {
            boolean held = execute(c, sql.updateLease, leaseMillis, key, permitId) == 1;
            if (held) {
                wakeups.changed(c, wakeKey(name)); // a shorter lease: waiters re-arm their lease-end wake-ups
            }
            return held;
        });
    }

    /** Extends each permit by its own lease, one statement per permit on one connection (no transaction). */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        List<Grant> all = List.copyOf(grants);
        return run("renew " + all.size() + " permit(s)", c -> {
            Set<Grant> lost = new HashSet<>();
            for (Grant g : all) {
                if (execute(c, sql.renewPermit, g.leaseMillis(), rowKey(g.name()), g.ownerId(), g.fencingToken())
                        != 1) {
                    lost.add(g);
                }
            }
            return lost;
        });
    }
}
