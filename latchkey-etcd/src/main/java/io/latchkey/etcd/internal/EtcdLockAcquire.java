package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One owner's way to a lock: put a key of ours under the lock's prefix, then wait until it has the lowest create
 * revision there (a writer of a read-write lock: and no downgraded read is held; a reader: the lowest among the
 * writers' keys and ours, so it passes other readers; a downgrade holds at once).
 *
 * <p>While it does not, it watches the deletion of the key with the next-lower create revision (its predecessor),
 * so a release wakes exactly one waiter and waiting costs the server nothing. A re-check every
 * {@link #RECHECK_MILLIS} (and whenever a keep-alive of the shared lease failed) is the fallback for a lost watch.
 * Giving up (deadline, cancellation, error) deletes our key, then completes.
 */
final class EtcdLockAcquire {

    /** The fallback re-check of a waiter whose watch stayed silent. */
    static final long RECHECK_MILLIS = 10_000;

    private final EtcdLockOps ops;
    private final EtcdSession session;
    private final AcquireRequest request;
    private final String prefix;
    private final EtcdLockOps.Kind kind;
    /** Where the keys that may keep us out live: the writers' keys for a reader, the whole prefix otherwise. */
    private final String blockers;
    final CompletableFuture<Grant> result = new CompletableFuture<>();
    private final AtomicBoolean finished = new AtomicBoolean();
    private final AtomicReference<Watch.Watcher> watcher = new AtomicReference<>();
    private final AtomicReference<ScheduledFuture<?>> recheck = new AtomicReference<>();
    private volatile ScheduledFuture<?> deadlineTimer;
    private volatile String key;
    private volatile long revision;
    private volatile long keyLease;
    /** Set just before the attempt completes with a grant: a late put of the same key must then stay. */
    private volatile boolean granted;
    /** Incremented by every check, so that a stale watch or timer of an earlier check does nothing. */
    private final AtomicLong generation = new AtomicLong();

    EtcdLockAcquire(EtcdLockOps ops, AcquireRequest request, String prefix, EtcdLockOps.Kind kind) {
        this.kind = kind;
        this.blockers = kind == EtcdLockOps.Kind.READ ? prefix + EtcdLockOps.Kind.WRITE.marker : prefix;
        this.ops = ops;
        this.session = ops.session;
        this.request = request;
        this.prefix = prefix;
    }

    void start() {
        request.cancelled().thenRun(() -> giveUp(null));
        if (request.deadlineNanos() != AcquireRequest.NO_DEADLINE && !request.isExpired()) {
            try {
                deadlineTimer = session.scheduler().schedule(() -> giveUp(null),
                        request.remainingNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                giveUp(session.unavailable("acquire " + request.name(), new IllegalStateException("client closed")));
                return;
            }
        }
        create();
    }

    /** Puts our key and reads the lowest key of the prefix in one transaction. */
    private void create() {
        create(true);
    }

    /**
     * @param retryOnLostLease whether a put refused because the shared lease expired (while this client was idle
     *        or the server was away) may be tried once more on a newly granted lease
     */
    private void create(boolean retryOnLostLease) {
        if (finished.get()) {
            return;
        }
        String k = prefix + ops.nextKeySuffix(kind);
        long sentAt = request.time().nanoTime();
        session.sharedLease().thenCompose(lease -> {
            CompletableFuture<TxnResponse> sent = session.client().getKVClient().txn()
                    .Then(Op.put(bytes(k), bytes(request.ownerId()), PutOption.builder().withLeaseId(lease).build()),
                            Op.get(bytes(blockers), GetOption.builder().isPrefix(true)
                                    .withSortField(GetOption.SortTarget.CREATE)
                                    .withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build()),
                            downgradedReads())
                    .commit();
            // jetcd retries a put across a reconnect after we stopped waiting for it: a key that lands once the
            // attempt is over must not stay behind (kept alive by our lease) and block the lock.
            sent.thenAccept(r -> {
                if (finished.get() && !(granted && k.equals(key))) {
                    deleteOrStrand(k, r.getHeader().getRevision());
                }
            });
            return session.bounded(sent, "put " + k).whenComplete((r, e) -> {
                if (e != null && EtcdSession.isLeaseNotFound(e)) {
                    session.leaseGone(lease);
                }
            }).thenApply(r -> {
                keyLease = lease;
                return r;
            });
        }).whenComplete((TxnResponse r, Throwable e) -> {
            if (e != null) {
                if (retryOnLostLease && EtcdSession.isLeaseNotFound(e)) {
                    create(false);
                } else {
                    fail(e);
                }
                return;
            }
            key = k;
            revision = r.getHeader().getRevision();
            if (finished.get()) {
                deleteOurKey();
                return;
            }
            List<KeyValue> first = r.getGetResponses().get(0).getKvs();
            boolean noDowngradedRead = kind != EtcdLockOps.Kind.WRITE || r.getGetResponses().get(1).getKvs().isEmpty();
            boolean holdsAtOnce = switch (kind) {
                // the put is in the same transaction, so every writer key seen is older than ours
                case READ -> first.isEmpty();
                case DOWNGRADE -> true;
                default -> !first.isEmpty() && first.get(0).getCreateRevision() == revision && noDowngradedRead;
            };
            if (holdsAtOnce) {
                holds(sentAt, revision);
            } else if (request.isExpired() || request.isCancelled()) {
                giveUp(null);
            } else {
                check();
            }
        });
    }

    /** Reads our key and our predecessor; holds if there is none, else watches it. */
    void check() {
        if (finished.get() || key == null) {
            return;
        }
        long gen = generation.incrementAndGet();
        closeWatch();
        String k = key;
        long rev = revision;
        long sentAt = request.time().nanoTime();
        session.bounded(session.client().getKVClient().txn()
                        .Then(Op.get(bytes(k), GetOption.DEFAULT),
                                Op.get(bytes(blockers), GetOption.builder().isPrefix(true).withKeysOnly(true)
                                        .withMaxCreateRevision(rev - 1)
                                        .withSortField(GetOption.SortTarget.CREATE)
                                        .withSortOrder(GetOption.SortOrder.DESCEND).withLimit(1).build()),
                                downgradedReads())
                        .commit(), "check " + k)
                .whenComplete((r, e) -> {
                    if (e != null) {
                        fail(e);
                        return;
                    }
                    if (finished.get() || gen != generation.get()) {
                        return;
                    }
                    List<KeyValue> ours = r.getGetResponses().get(0).getKvs();
                    if (ours.isEmpty() || ours.get(0).getCreateRevision() != rev) {
                        // Our key went (its lease expired, or it was force-deleted): queue again.
                        key = null;
                        create();
                        return;
                    }
                    List<KeyValue> before = r.getGetResponses().get(1).getKvs();
                    List<KeyValue> down = r.getGetResponses().get(2).getKvs();
                    if (before.isEmpty() && kind == EtcdLockOps.Kind.WRITE && !down.isEmpty()) {
                        // First in line, but a downgraded read (queued after us, granted at once) is held.
                        watch(gen, down.get(0).getKey(), r.getHeader().getRevision() + 1);
                        return;
                    }
                    if (before.isEmpty() || kind == EtcdLockOps.Kind.DOWNGRADE) {
                        // The token is the revision at which we were seen to hold, not our key's create revision:
                        // a hand-off between local owners (a write) may have issued a token after our key's
                        // creation, and this read comes after that holder's key was deleted.
                        holds(sentAt, r.getHeader().getRevision());
                        return;
                    }
                    watch(gen, before.get(0).getKey(), r.getHeader().getRevision() + 1);
                });
    }

    /**
     * A read of one downgraded reader's key under our prefix (the writer's second condition); an empty range for
     * other kinds, so that every transaction has the same shape.
     */
    private Op downgradedReads() {
        // no key is the bare prefix itself
        String scope = kind == EtcdLockOps.Kind.WRITE ? prefix + EtcdLockOps.Kind.DOWNGRADE.marker : prefix;
        return Op.get(bytes(scope), GetOption.builder().isPrefix(kind == EtcdLockOps.Kind.WRITE).withKeysOnly(true)
                .withLimit(1).build());
    }

    private void watch(long gen, io.etcd.jetcd.ByteSequence predecessor, long fromRevision) {
        Watch.Watcher w = session.client().getWatchClient().watch(predecessor,
                WatchOption.builder().withRevision(fromRevision).withNoPut(true).build(),
                Watch.listener(response -> {
                    for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE) {
                            recheckIfCurrent(gen);
                            return;
                        }
                    }
                }, error -> recheckIfCurrent(gen)));
        Watch.Watcher previous = watcher.getAndSet(w);
        if (previous != null) {
            previous.close();
        }
        if (finished.get() || gen != generation.get()) {
            closeWatch();
            return;
        }
        try {
            ScheduledFuture<?> timer = session.scheduler().schedule(() -> recheckIfCurrent(gen), RECHECK_MILLIS,
                    TimeUnit.MILLISECONDS);
            ScheduledFuture<?> old = recheck.getAndSet(timer);
            if (old != null) {
                old.cancel(false);
            }
        } catch (RejectedExecutionException e) {
            giveUp(null);
        }
    }

    private void recheckIfCurrent(long gen) {
        if (gen == generation.get() && !finished.get()) {
            check();
        }
    }

    /** A keep-alive failed: the server may be gone, so a waiter asks it now instead of trusting its watch. */
    void recheckNow() {
        if (!finished.get() && key != null) {
            check();
        }
    }

    private void holds(long sentAt, long token) {
        if (finished.get()) {
            deleteOurKey();
            return;
        }
        if (request.watchdog()) {
            String k = key;
            long rev = revision;
            long lease = keyLease;
            // The engine bounds the hold from its grant's request time, but the key lives only as long as the
            // shared lease's current TTL, which may have started earlier: the grant takes the earlier moment.
            session.ttlStartedAt(lease).whenComplete((ttlStart, e) -> {
                if (e != null) {
                    fail(e);
                } else if (ttlStart == null) {
                    key = null;
                    create();
                } else if (complete(new Grant(request, token, Math.min(sentAt, ttlStart),
                        new EtcdGrantState(k, rev, lease, false))) && token != rev) {
                    recordToken(k, rev, lease, token);
                }
            });
            return;
        }
        // A fixed lease: move the key to a lease of its own (the create revision, our place, stays).
        String k = key;
        long rev = revision;
        long ttl = session.ttlSecondsFor(request.leaseMillis());
        session.bounded(session.client().getLeaseClient().grant(ttl), "grant a lease of " + ttl + " s")
                .thenCompose(g -> session.bounded(session.client().getKVClient().txn()
                        .If(new Cmp(bytes(k), Cmp.Op.EQUAL, CmpTarget.createRevision(rev)))
                        .Then(Op.put(bytes(k), EtcdKeys.value(request.ownerId(), token),
                                PutOption.builder().withLeaseId(g.getID()).build()))
                        .commit(), "move " + k + " to its own lease").thenApply(t -> {
                            if (!t.isSucceeded()) {
                                session.revoke(g.getID());
                                return 0L;
                            }
                            return g.getID();
                        }))
                .whenComplete((lease, e) -> {
                    if (e != null) {
                        fail(e);
                    } else if (lease == 0L) {
                        key = null;
                        create();
                    } else if (!complete(new Grant(request, token, sentAt, new EtcdGrantState(k, rev, lease, true)))) {
                        session.revoke(lease);
                    }
                });
    }

    /**
     * Writes a queued grant's token into its key, for {@code latchkey inspect} (another client cannot derive it: it
     * is the revision of the read that granted it). Sent after the grant and never waited for; only if the key is
     * untouched since its creation, so a hand-off that rewrote it meanwhile is never overwritten.
     */
    private void recordToken(String k, long rev, long lease, long token) {
        try {
            session.client().getKVClient().txn()
                    .If(new Cmp(bytes(k), Cmp.Op.EQUAL, CmpTarget.createRevision(rev)),
                            new Cmp(bytes(k), Cmp.Op.EQUAL, CmpTarget.modRevision(rev)))
                    .Then(Op.put(bytes(k), EtcdKeys.value(request.ownerId(), token),
                            PutOption.builder().withLeaseId(lease).build()))
                    .commit().exceptionally(e -> null);
        } catch (RuntimeException e) {
            // best effort: inspect then shows the key's create revision
        }
    }

    private boolean complete(Grant grant) {
        granted = true;
        if (!finished.compareAndSet(false, true)) {
            granted = false;
            deleteOurKey();
            return false;
        }
        cleanUpTimers();
        ops.granted(grant);
        result.complete(grant);
        return true;
    }

    /** Abandons the attempt: deletes our key (if any), then completes with {@code null} or {@code error}. */
    void giveUp(Throwable error) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        cleanUpTimers();
        CompletableFuture<Boolean> deleted = key == null ? CompletableFuture.completedFuture(false) : deleteOurKey();
        deleted.whenComplete((ok, e) -> {
            if (error == null) {
                result.complete(null);
            } else {
                result.completeExceptionally(error);
            }
        });
    }

    private void fail(Throwable e) {
        giveUp(session.unavailable("acquire " + request.name(), e));
    }

    private CompletableFuture<Boolean> deleteOurKey() {
        String k = key;
        if (k == null) {
            return CompletableFuture.completedFuture(false);
        }
        return deleteOrStrand(k, revision);
    }

    /**
     * Deletes a key of this attempt that must not stay (the attempt gave up, or lost the race to a grant); if etcd
     * does not answer, the delete is retried until it does ({@link StrandedKeys}). Without that, a waiter that gave
     * up during a leader election left its key behind on the shared lease, which this client keeps alive for its
     * other keys, and the name was blocked for as long as the client lived (the fault suite's etcd-cluster failover).
     * Completes with whether this first try deleted it; never exceptionally.
     */
    private CompletableFuture<Boolean> deleteOrStrand(String k, long createRevision) {
        return ops.deleteIfOurs(k, createRevision).handle((deleted, e) -> {
            if (e != null) {
                session.stranded().delete(k, createRevision, 0);
                return false;
            }
            return deleted;
        });
    }

    private void cleanUpTimers() {
        ScheduledFuture<?> d = deadlineTimer;
        if (d != null) {
            d.cancel(false);
        }
        ScheduledFuture<?> r = recheck.getAndSet(null);
        if (r != null) {
            r.cancel(false);
        }
        closeWatch();
    }

    private void closeWatch() {
        Watch.Watcher w = watcher.getAndSet(null);
        if (w != null) {
            w.close();
        }
    }

}
