package io.latchkey.etcd.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys whose release (or hand-off) did not reach etcd, deleted again and again until etcd answers.
 *
 * <p>A watchdog hold's key lives on the client's shared lease, which this client keeps alive for as long as it has
 * other keys (held or waiting). A release that failed because the server was down would otherwise leave that key
 * the lowest create revision under its prefix for as long as the client lives, and every waiter of the name would
 * wait forever. Each stranded key is retried on the session's scheduler thread, first after
 * {@value #FIRST_DELAY_MILLIS} ms and then with a doubling delay of at most a quarter of the shared lease's TTL (and
 * at most {@value #MAX_DELAY_MILLIS} ms), so once etcd serves again the key goes well within a TTL. A retry ends the
 * key's story when etcd answers: the delete took the key, or the key is gone (the delete had landed after all, or
 * the key's lease expired or was revoked) or was recreated with another create revision; then a lease of the hold's
 * own is revoked as well. Closing the session ends the retries (closing revokes the shared lease, which takes its keys;
 * a fixed lease's key goes with its own lease).
 *
 * <p>Thread-safe. No I/O under a lock: the map is concurrent and each key has one retry in flight at a time.
 */
final class StrandedKeys {
    private static final Logger log = LoggerFactory.getLogger(StrandedKeys.class);
    static final long FIRST_DELAY_MILLIS = 100;
    static final long MAX_DELAY_MILLIS = 1000;

    private final EtcdSession session;
    private final long maxDelayMillis;
    /** Key → its create revision, while a retry is pending. */
    private final Map<String, Long> pending = new ConcurrentHashMap<>();

    StrandedKeys(EtcdSession session) {
        this.session = session;
        this.maxDelayMillis = Math.max(FIRST_DELAY_MILLIS,
                Math.min(MAX_DELAY_MILLIS, session.sharedTtlMillis() / 4));
    }

    /**
     * Deletes {@code key} if it still has {@code createRevision}, retrying until etcd answers; then revokes
     * {@code ownLeaseId} unless it is 0.
     */
    void delete(String key, long createRevision, long ownLeaseId) {
        if (pending.putIfAbsent(key, createRevision) != null) {
            return; // one retry per key is enough: each compares the same create revision
        }
        log.debug("release of etcd key {} did not reach {}; retrying until it does", key, session.endpoints());
        schedule(key, createRevision, ownLeaseId, FIRST_DELAY_MILLIS);
    }

    /** How many keys wait for their delete to reach etcd; for tests and inspection. */
    int size() {
        return pending.size();
    }

    private void schedule(String key, long createRevision, long ownLeaseId, long delayMillis) {
        try {
            session.scheduler().schedule(() -> attempt(key, createRevision, ownLeaseId, delayMillis), delayMillis,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            pending.remove(key, createRevision); // closing: the revoked shared lease takes the key
        }
    }

    private void attempt(String key, long createRevision, long ownLeaseId, long delayMillis) {
        session.deleteIfCreatedAt(key, createRevision).whenComplete((deleted, e) -> {
            if (e == null) {
                pending.remove(key, createRevision);
                log.debug("stranded etcd key {} {}", key, deleted ? "deleted" : "was already gone");
                if (ownLeaseId != 0) {
                    session.revoke(ownLeaseId);
                }
            } else if (EtcdSession.isLeaseNotFound(e)) {
                pending.remove(key, createRevision);
            } else {
                schedule(key, createRevision, ownLeaseId, Math.min(maxDelayMillis, delayMillis * 2));
            }
        });
    }
}
