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
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The remote half of the etcd permit-expirable semaphore. Under the semaphore's prefix
 * ({@code latchkey/[<namespace>/]permits/<escaped name>/}) the key {@code total} holds the number of permits, and
 * each held permit is one key {@code held/<escaped permit id>} on an etcd lease: the client's shared lease for a
 * watchdog permit, a lease of its own for a fixed one.
 *
 * <h2>Taking a permit</h2>
 * etcd cannot compare the number of keys under a prefix, so {@code total} is the guard: one read returns it and the
 * count of {@code held/} keys at one revision; if a permit is free, one transaction puts the permit's key <em>and
 * rewrites {@code total}</em> (same value) if {@code total}'s mod revision is still the one read. Every grant and
 * change of the total rewrites it, so two clients that read the same free permit cannot both take it; a permit that
 * goes meanwhile only makes the read too cautious, and its deletion wakes the waiters. The token is that revision.
 *
 * <h2>Leases</h2>
 * etcd's TTLs are whole seconds, so a fixed permit's lease is rounded up and this client deletes its key at the exact
 * end ({@link #leaseEnded}); a crashed holder's permit returns with its etcd lease. A release or expiry that does not
 * reach etcd is retried until it does ({@link StrandedKeys}): a watchdog permit's key on the shared lease would
 * otherwise stay for the client's life. Waiters put no keys: the engine waits, woken by a watch on the prefix.
 */
public final class EtcdPermitExpirableSemaphoreOps implements RemoteCountOps {

    private final EtcdSession session;
    private final Function<String, String> prefixOf;
    private final EtcdCounter counter;
    /** Permits this client took, by key: their own leases, for their ends and for revoking at release. */
    private final Map<String, EtcdGrantState> held = new ConcurrentHashMap<>();

    /** @param prefixOf maps a semaphore name to its key prefix (ending in {@code /}) */
    public EtcdPermitExpirableSemaphoreOps(EtcdSession session, Function<String, String> prefixOf) {
        this.session = session;
        this.prefixOf = prefixOf;
        this.counter = new EtcdCounter(session);
    }

    private String totalKey(String name) {
        return prefixOf.apply(name) + "total";
    }

    private String heldPrefix(String name) {
        return prefixOf.apply(name) + "held/";
    }

    private String permitKey(String name, String permitId) {
        return heldPrefix(name) + EtcdKeys.escape(permitId);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return session.subscribe(prefixOf.apply(name), true, changed);
    }

    /** {@code total} and the number of held keys, read at one revision. */
    private CompletableFuture<TxnResponse> readState(String name) {
        return session.bounded(session.client().getKVClient().txn().Then(
                Op.get(bytes(totalKey(name)), GetOption.DEFAULT),
                Op.get(bytes(heldPrefix(name)), GetOption.builder().isPrefix(true).withCountOnly(true).build()))
                .commit(), "read semaphore " + name);
    }

    private static KeyValue total(TxnResponse r) {
        List<KeyValue> kvs = r.getGetResponses().get(0).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    private static long heldCount(TxnResponse r) {
        return r.getGetResponses().get(1).getCount();
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return readState(name).thenApply(r -> {
            KeyValue total = total(r);
            return total == null ? 0 : EtcdSemaphoreOps.clamp(EtcdCounter.parse(total) - heldCount(r));
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return counter.putIfAbsent(totalKey(name), permits, "set permits of semaphore " + name);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return counter.update(totalKey(name), "add permits to semaphore " + name,
                v -> EtcdCounter.Change.put((v == null ? 0 : v) + delta, (Void) null));
    }

    @Override
    public boolean renewsPermits() {
        return true;
    }

    /** A lease end deletes its key: the watch tells, so a busy answer needs no hint. */
    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        long sentAt = System.nanoTime();
        return readState(name).thenCompose(r -> {
            KeyValue total = total(r);
            if (total == null || EtcdCounter.parse(total) - heldCount(r) <= 0) {
                return CompletableFuture.completedFuture(Attempt.busy());
            }
            return session.leaseFor(watchdog, leaseMillis)
                    .thenCompose(leaseId -> put(name, permitId, leaseMillis, watchdog, total, leaseId, sentAt));
        });
    }

    private CompletableFuture<Attempt> put(String name, String permitId, long leaseMillis, boolean watchdog,
                                         KeyValue total, long leaseId, long sentAt) {
        String key = permitKey(name, permitId);
        Txn txn = session.client().getKVClient().txn()
                .If(EtcdCounter.unchanged(totalKey(name), total), EtcdCounter.unchanged(key, null))
                .Then(Op.put(bytes(totalKey(name)), total.getValue(), PutOption.DEFAULT),
                        Op.put(bytes(key), bytes(permitId), PutOption.builder().withLeaseId(leaseId).build()));
        CompletableFuture<TxnResponse> sent = txn.commit();
        return session.bounded(sent, "take a permit of semaphore " + name).handle((t, e) -> {
            if (e != null) {
                // the put may still land: delete it until etcd answers, or a watchdog permit would stay forever
                sent.whenComplete((late, e2) -> {
                    if (late != null && late.isSucceeded()) {
                        session.stranded().strand(new EtcdGrantState(key, late.getHeader().getRevision(), leaseId,
                                !watchdog));
                    } else if (!watchdog) {
                        session.revoke(leaseId);
                    }
                });
                throw new java.util.concurrent.CompletionException(e);
            }
            return t;
        }).thenCompose(t -> {
            if (!t.isSucceeded()) {
                if (!watchdog) {
                    session.revoke(leaseId);
                }
                // another grant or a new total came in between: look again at once (saves the engine a round)
                return tryLease(name, permitId, leaseMillis, watchdog);
            }
            long revision = t.getHeader().getRevision();
            EtcdGrantState hold = new EtcdGrantState(key, revision, leaseId, !watchdog);
            return session.boundStart(watchdog, leaseId, sentAt).thenApply(ttlStart -> {
                if (ttlStart == null) {
                    return Attempt.busy(); // the shared lease expired: the key went with it
                }
                held.put(key, hold);
                return Attempt.granted(new Grant(name, permitId, revision, leaseMillis, watchdog,
                        Math.min(sentAt, ttlStart), hold));
            });
        });
    }

    /** Deletes a fixed permit's key at its lease's exact end if still the one taken; retried until etcd answers. */
    @Override
    public void leaseEnded(String name, String permitId) {
        String key = permitKey(name, permitId);
        EtcdGrantState hold = held.get(key);
        if (hold != null && hold.ownLease() && held.remove(key, hold)) {
            session.stranded().release(hold);
        }
    }

    /**
     * Deletes the permit's key: for a permit this client took if its create revision is the one taken, retried until
     * etcd answers ({@link StrandedKeys}); another client's permit by key (its holder finds it gone).
     */
    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        String key = permitKey(name, permitId);
        EtcdGrantState hold = held.remove(key);
        if (hold == null) {
            return session.bounded(session.client().getKVClient().delete(bytes(key)), "release permit " + permitId)
                    .thenApply(d -> d.getDeleted() > 0);
        }
        return session.stranded().release(hold);
    }

    /** Moves the permit's key, if still there, to a new lease of its own, revoking the previous own lease. */
    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        String key = permitKey(name, permitId);
        return session.grantLease(leaseMillis).thenCompose(g -> {
                    long leaseId = g.getID();
                    EtcdGrantState before = held.get(key);
                    Cmp present = before != null
                            ? new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(before.createRevision()))
                            : new Cmp(bytes(key), Cmp.Op.GREATER, CmpTarget.version(0));
                    return session.bounded(session.client().getKVClient().txn().If(present)
                            .Then(Op.put(bytes(key), bytes(permitId), PutOption.builder().withLeaseId(leaseId).build()),
                                    Op.get(bytes(key), GetOption.DEFAULT))
                            .commit(), "update the lease of permit " + permitId).thenApply(t -> {
                                if (!t.isSucceeded()) {
                                    session.revoke(leaseId);
                                    return false;
                                }
                                KeyValue kv = t.getGetResponses().get(0).getKvs().get(0);
                                EtcdGrantState now = new EtcdGrantState(key, kv.getCreateRevision(), leaseId, true);
                                EtcdGrantState old = before != null ? before : held.get(key);
                                held.put(key, now);
                                if (old != null && old.ownLease()) {
                                    session.revoke(old.leaseId());
                                }
                                return true;
                            });
                });
    }

    /** One keep-alive per lease (the shared one) plus one transaction reading every permit's key. */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return session.renew(grants, "permit keys").thenApply(lost -> {
            lost.forEach(g -> {
                EtcdGrantState hold = g.backendState(EtcdGrantState.class);
                held.remove(hold.key(), hold);
            });
            return lost;
        });
    }
}
