package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps.Attempt;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The single attempts of one lock ops on etcd's create-revision queue: a first attempt puts the owner's key and reads
 * the keys before it in the same transaction, holds if none is left ({@link #awaited}), else answers queued with its
 * key as the entry; a later attempt re-reads its key and its predecessor. The awaited key is noted
 * ({@link EtcdWaitingKeys.Key#awaited}), so the name's watch wakes the engine only when that key goes. Never waits,
 * never arms a timer: the engine does both.
 */
final class EtcdLockAttempts {

    /** The re-check hint behind a key that names no lease TTL: a fallback for a lost watch event. */
    static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(10);
    /**
     * Added to the awaited key's lease TTL: etcd revokes an expired lease (and deletes its keys) in its lessor's next
     * round and a consensus write, a few hundred milliseconds after the TTL.
     */
    static final long LEASE_END_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final EtcdLockOps ops;
    private final EtcdSession session;
    final EtcdWaitingKeys waiting;

    EtcdLockAttempts(EtcdLockOps ops) {
        this.ops = ops;
        this.session = ops.session;
        this.waiting = new EtcdWaitingKeys(ops);
    }

    /** A re-check of the waiting key {@code entry}, or a new key of {@code kind} if there is none. */
    CompletableFuture<Attempt> attempt(AcquireRequest request, String prefix, EtcdLockOps.Kind kind, String entry) {
        EtcdWaitingKeys.Key k = entry == null ? null : waiting.get(entry);
        if (k != null && k.state.get() == EtcdWaitingKeys.State.LANDED) {
            return check(request, k, kind);
        }
        return put(request, prefix, kind, true);
    }

    /** A read of the newest keys that may keep a waiter out, newest first: writers' for a reader, else all. */
    private static Op newestBlockers(String prefix, EtcdLockOps.Kind kind, GetOption.Builder options) {
        String blockers = kind == EtcdLockOps.Kind.READ ? prefix + EtcdLockOps.Kind.WRITE.marker : prefix;
        return Op.get(bytes(blockers), options.isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND).build());
    }

    /** A transaction sent, or a failed future if it cannot be (the client closing). */
    private static CompletableFuture<TxnResponse> commit(Supplier<Txn> txn) {
        try {
            return txn.get().commit();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A read of one downgraded reader's key (a writer's second condition; its value's TTL is the writer's re-check
     * hint); for other kinds an empty range, so that every transaction has the same shape.
     */
    private static Op downgradedReads(String prefix, EtcdLockOps.Kind kind) {
        boolean write = kind == EtcdLockOps.Kind.WRITE;
        String scope = write ? prefix + EtcdLockOps.Kind.DOWNGRADE.marker : prefix;
        return Op.get(bytes(scope), GetOption.builder().isPrefix(write).withLimit(1).build());
    }

    /**
     * Puts a new key and reads the newest blockers in one transaction; if {@code retryOnLostLease}, a put refused as the
     * shared lease expired (while this client was idle or the server away) is tried once more on a new lease.
     */
    private CompletableFuture<Attempt> put(AcquireRequest request, String prefix, EtcdLockOps.Kind kind,
                                           boolean retryOnLostLease) {
        String key = prefix + ops.nextKeySuffix(kind);
        long sentAt = request.time().nanoTime();
        return session.sharedLease().thenCompose(lease -> {
            EtcdWaitingKeys.Key k = waiting.putting(key, prefix, request.ownerId(), kind, lease);
            CompletableFuture<TxnResponse> sent = commit(() -> session.client().getKVClient().txn().Then(
                    Op.put(bytes(key), EtcdKeys.value(request.ownerId(), session.clientName,
                            session.sharedTtlSeconds(), -1), PutOption.builder().withLeaseId(lease).build()),
                    newestBlockers(prefix, kind, GetOption.builder().withLimit(2)), downgradedReads(prefix, kind)));
            // a put that lands after its attempt gave up is deleted then (EtcdWaitingKeys)
            sent.whenComplete((r, e) -> {
                if (e == null) {
                    waiting.landed(k, r.getHeader().getRevision());
                } else {
                    waiting.putFailed(k);
                }
            });
            return session.bounded(sent, "put " + key).handle((r, e) -> {
                if (e != null) {
                    waiting.abandon(k);
                    if (EtcdSession.isLeaseNotFound(e)) {
                        session.leaseGone(lease);
                        if (retryOnLostLease) {
                            return put(request, prefix, kind, false);
                        }
                    }
                    return failed(request, e);
                }
                waiting.landed(k, r.getHeader().getRevision());
                return afterPut(request, k, r, sentAt);
            }).thenCompose(f -> f);
        });
    }

    private CompletableFuture<Attempt> afterPut(AcquireRequest request, EtcdWaitingKeys.Key k, TxnResponse r,
                                                long sentAt) {
        // sorted newest first: our own key (the put is in the same transaction), then the one before it
        KeyValue before = null;
        for (KeyValue kv : r.getGetResponses().get(0).getKvs()) {
            if (!EtcdKeys.string(kv.getKey()).equals(k.key)) {
                before = kv;
                break;
            }
        }
        List<KeyValue> down = r.getGetResponses().get(1).getKvs();
        KeyValue awaited = awaited(k.kind, before, down.isEmpty() ? null : down.get(0));
        return awaited == null ? hold(request, k, sentAt, k.revision) : queued(k, awaited);
    }

    /**
     * The key a waiting key must outlast ({@code null}: it holds): {@code before}, the newest blocker before it, or for a
     * writer first in line {@code downgraded}, a held downgraded read (each {@code null} if none).
     */
    static <K> K awaited(EtcdLockOps.Kind kind, K before, K downgraded) {
        if (kind == EtcdLockOps.Kind.DOWNGRADE) {
            return null;
        }
        return before == null && kind == EtcdLockOps.Kind.WRITE ? downgraded : before;
    }

    /**
     * A queued answer: {@code k} waits for {@code awaited}, whose deletion the watch tells; the re-check hint is when
     * it is gone at the latest if its owner died: its lease's TTL (named in its value) and a margin.
     */
    private static CompletableFuture<Attempt> queued(EtcdWaitingKeys.Key k, KeyValue awaited) {
        k.awaited = EtcdKeys.string(awaited.getKey());
        return CompletableFuture.completedFuture(Attempt.queued(k.key, recheckNanos(awaited)));
    }

    /** The re-check hint of a waiter behind the key {@code awaited} (see {@link #queued}). */
    static long recheckNanos(KeyValue awaited) {
        long ttl = EtcdKeys.ttlSeconds(awaited);
        return ttl > 0 ? TimeUnit.SECONDS.toNanos(ttl) + LEASE_END_MARGIN_NANOS : RECHECK_NANOS;
    }

    /** Reads our key and our predecessor: holds if there is none, else stays queued. */
    private CompletableFuture<Attempt> check(AcquireRequest request, EtcdWaitingKeys.Key k, EtcdLockOps.Kind kind) {
        k.awaited = null; // while the read is out, every deletion wakes
        long sentAt = request.time().nanoTime();
        CompletableFuture<TxnResponse> read = commit(() -> session.client().getKVClient().txn().Then(
                Op.get(bytes(k.key), GetOption.DEFAULT), newestBlockers(k.prefix, k.kind,
                        GetOption.builder().withLimit(1).withMaxCreateRevision(k.revision - 1)),
                downgradedReads(k.prefix, k.kind)));
        return session.bounded(read, "check " + k.key).handle((r, e) -> {
            if (e != null) {
                waiting.abandon(k);
                return failed(request, e);
            }
            List<KeyValue> ours = r.getGetResponses().get(0).getKvs();
            if (ours.isEmpty() || ours.get(0).getCreateRevision() != k.revision) {
                // our key went (its lease expired, or it was force-deleted): queue again
                waiting.gone(k);
                return put(request, k.prefix, kind, true);
            }
            List<KeyValue> before = r.getGetResponses().get(1).getKvs();
            List<KeyValue> down = r.getGetResponses().get(2).getKvs();
            KeyValue awaited = awaited(k.kind, before.isEmpty() ? null : before.get(0),
                    down.isEmpty() ? null : down.get(0));
            if (awaited == null) {
                // The token is the revision at which we were seen to hold, not our key's create revision: a hand-off
                // between local owners (a write) may have issued a token after our key's creation, and this read
                // comes after that holder's key was deleted.
                return hold(request, k, sentAt, r.getHeader().getRevision());
            }
            return queued(k, awaited);
        }).thenCompose(f -> f);
    }

    /**
     * Our key holds the lock: the grant. A watchdog hold's key lives only as long as the shared lease's current TTL,
     * which may have started before {@code sentAt}: the grant takes the earlier moment. A fixed hold first moves its
     * key to a lease of its own (the create revision, our place, stays).
     */
    private CompletableFuture<Attempt> hold(AcquireRequest request, EtcdWaitingKeys.Key k, long sentAt, long token) {
        boolean watchdog = request.watchdog();
        // a watchdog hold: when the shared lease's TTL started; a fixed one: its own lease; null: the key is gone
        CompletableFuture<Long> ready = watchdog ? session.ttlStartedAt(k.leaseId) : ownLease(request, k, token);
        return ready.handle((v, e) -> {
            if (e != null) {
                waiting.abandon(k);
                return failed(request, e);
            }
            if (v == null) {
                waiting.gone(k);
                return put(request, k.prefix, k.kind, !watchdog);
            }
            if (!waiting.granted(k)) {
                if (!watchdog) {
                    session.revoke(v);
                }
                return withdrawn(request);
            }
            Grant grant = new Grant(request, token, watchdog ? Math.min(sentAt, v) : sentAt,
                    new EtcdGrantState(k.key, k.revision, watchdog ? k.leaseId : v, !watchdog));
            ops.granted(grant);
            if (watchdog && token != k.revision) {
                recordToken(k, request.ownerId(), token);
            }
            return CompletableFuture.completedFuture(Attempt.granted(grant));
        }).thenCompose(f -> f);
    }

    /** Moves {@code k} to a new lease of its own; completes with the lease, or {@code null} if the key is gone. */
    private CompletableFuture<Long> ownLease(AcquireRequest request, EtcdWaitingKeys.Key k, long token) {
        return session.grantLease(request.leaseMillis())
                .thenCompose(g -> session.bounded(session.client().getKVClient().txn()
                        .If(new Cmp(bytes(k.key), Cmp.Op.EQUAL, CmpTarget.createRevision(k.revision)))
                        .Then(Op.put(bytes(k.key), EtcdKeys.value(request.ownerId(), session.clientName, g.getTTL(), token),
                                PutOption.builder().withLeaseId(g.getID()).build()))
                        .commit(), "move " + k.key + " to its own lease").thenApply(t -> {
                            if (!t.isSucceeded()) {
                                session.revoke(g.getID());
                                return null;
                            }
                            return g.getID();
                        }));
    }

    /**
     * Writes a queued grant's token (the revision of the read that granted it) into its key, for inspection; never
     * waited for (best effort), and only if the key is untouched since its creation, so no hand-off is overwritten.
     */
    private void recordToken(EtcdWaitingKeys.Key k, String ownerId, long token) {
        commit(() -> session.client().getKVClient().txn()
                .If(new Cmp(bytes(k.key), Cmp.Op.EQUAL, CmpTarget.createRevision(k.revision)),
                        new Cmp(bytes(k.key), Cmp.Op.EQUAL, CmpTarget.modRevision(k.revision)))
                .Then(Op.put(bytes(k.key), EtcdKeys.value(ownerId, session.clientName, session.sharedTtlSeconds(),
                        token), PutOption.builder().withLeaseId(k.leaseId).build())));
    }

    private CompletableFuture<Attempt> failed(AcquireRequest request, Throwable e) {
        return CompletableFuture.failedFuture(session.unavailable("acquire " + request.name(), e));
    }

    /** The key was withdrawn while its attempt was out (the client is closing): nobody waits for this answer. */
    private CompletableFuture<Attempt> withdrawn(AcquireRequest request) {
        return failed(request, new IllegalStateException("the waiting key was withdrawn"));
    }
}
