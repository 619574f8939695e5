package io.latchkey.etcd.internal;

import io.latchkey.core.RetriedRemoval;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys whose release (or hand-off) did not reach etcd, deleted again through the engine's {@link RetriedRemoval}
 * until etcd answers: a watchdog hold's key lives on the shared lease, which this client keeps alive while it has
 * other keys, so a failed release would otherwise block every waiter of the name for the client's life. Retries start
 * after {@value #FIRST_DELAY_MILLIS} ms and double up to a quarter of the shared TTL (at most
 * {@value #MAX_DELAY_MILLIS} ms), so once etcd serves again the key goes well within a TTL. Any answer ends the
 * retries (deleted, gone, or recreated with another create revision); then a lease of the hold's own is revoked too.
 * Closing the client ends them (it revokes the shared lease; a fixed hold's key goes with its own lease).
 *
 * <p>Thread-safe. No I/O under a lock: the map is concurrent and each key has one retry in flight at a time.
 */
final class StrandedKeys {
    private static final Logger log = LoggerFactory.getLogger(StrandedKeys.class);
    static final long FIRST_DELAY_MILLIS = 100;
    static final long MAX_DELAY_MILLIS = 1000;

    private final EtcdSession session;
    /** The client's retried removals, also those of the semaphore's give-backs. */
    final RetriedRemoval removals;
    /** Key → its create revision, while a retry is pending. */
    private final Map<String, Long> pending = new ConcurrentHashMap<>();

    StrandedKeys(EtcdSession session) {
        this.session = session;
        long maxDelayMillis = Math.max(FIRST_DELAY_MILLIS,
                Math.min(MAX_DELAY_MILLIS, session.sharedTtlSeconds() * 1000 / 4));
        this.removals = new RetriedRemoval(
                (task, delayMillis) -> session.scheduler().schedule(task, delayMillis, TimeUnit.MILLISECONDS),
                () -> !session.scheduler().isShutdown(), FIRST_DELAY_MILLIS, maxDelayMillis, log);
    }

    /**
     * Releases a held key: deletes it if it still has its create revision, then revokes its own lease if any; without
     * an answer the caller hears of the failure and the delete is retried until etcd answers ({@link #strand}).
     */
    CompletableFuture<Boolean> release(EtcdGrantState hold) {
        return session.deleteIfCreatedAt(hold.key(), hold.createRevision()).whenComplete((deleted, e) -> {
            if (e != null) {
                strand(hold);
            } else if (hold.ownLease()) {
                session.revoke(hold.leaseId());
            }
        });
    }

    /** A release or hand-off of {@code hold} did not reach etcd: deletes its key until etcd answers. */
    void strand(EtcdGrantState hold) {
        delete(hold.key(), hold.createRevision(), hold.ownLease() ? hold.leaseId() : 0);
    }

    /**
     * Deletes {@code key} if it still has {@code createRevision}, retrying until etcd answers; then revokes
     * {@code ownLeaseId} unless it is 0. With {@code createRevision} -1, deletes a waiting key whose put got no answer
     * whatever its revision: its name is unique to the one attempt that put it, so it is no later hold's.
     */
    void delete(String key, long createRevision, long ownLeaseId) {
        boolean now = createRevision < 0;
        if (pending.putIfAbsent(key, createRevision) != null) {
            return; // one retry per key is enough: each compares the same create revision
        }
        RetriedRemoval.Try<Boolean> delete = retry -> createRevision >= 0
                ? session.deleteIfCreatedAt(key, createRevision)
                : session.bounded(session.client().getKVClient().delete(EtcdKeys.bytes(key)), "delete " + key)
                        .thenApply(r -> r.getDeleted() > 0);
        Predicate<Throwable> retryable = e -> !EtcdSession.isLeaseNotFound(e);
        String what = (now ? "clean-up of etcd key " + key + " whose put got no answer"
                : "release of etcd key " + key) + " on " + session.endpoints();
        (now ? removals.now(what, delete, retryable, null, null) : removals.afterFailure(what, delete, retryable, null))
                .whenComplete((deleted, e) -> {
                    pending.remove(key, createRevision);
                    if (deleted != null) {
                        log.debug("stranded etcd key {} {}", key, deleted ? "deleted" : "was already gone");
                        if (ownLeaseId != 0) {
                            session.revoke(ownLeaseId);
                        }
                    }
                });
    }
}
