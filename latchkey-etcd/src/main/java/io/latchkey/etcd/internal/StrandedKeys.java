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
 * until etcd answers.
 *
 * <p>A watchdog hold's key lives on the client's shared lease, which this client keeps alive for as long as it has
 * other keys (held or waiting). A release that failed because the server was down would otherwise leave that key
 * the lowest create revision under its prefix for as long as the client lives, and every waiter of the name would
 * wait forever. Each stranded key is retried on the client's scheduler, first after {@value #FIRST_DELAY_MILLIS} ms
 * and then with a doubling delay of at most a quarter of the shared lease's TTL (and at most
 * {@value #MAX_DELAY_MILLIS} ms), so once etcd serves again the key goes well within a TTL. A retry ends the key's
 * story when etcd answers: the delete took the key, or the key is gone (the delete had landed after all, or the
 * key's lease expired or was revoked) or was recreated with another create revision; then a lease of the hold's own
 * is revoked as well. Closing the client ends the retries (closing revokes the shared lease, which takes its keys; a
 * fixed lease's key goes with its own lease).
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
     * Releases a held key: deletes it if it still has its create revision, then revokes its own lease if it has one;
     * if etcd does not answer, the delete is retried until it does ({@link #strand}) and the caller hears of the
     * failure.
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
     * {@code ownLeaseId} unless it is 0. With {@code createRevision} -1, deletes the waiting key {@code key} whose put
     * got no answer (it may have landed all the same: a connection lost after etcd applied it), at once: its name is
     * unique to the one attempt that put it (this client's id and a sequence number), so whatever create revision it
     * has, it is that attempt's key and no later hold's.
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
