package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The remote half of the etcd lock: one key per owner under the lock's prefix, the lowest create revision holds.
 *
 * <h2>Round trips</h2>
 * An uncontended watchdog acquire is one transaction (put our key, read the keys before it); a fixed-lease acquire
 * adds a lease grant and a transaction moving the key to it. Release is one transaction (delete our key if its create
 * revision is still ours). A release or hand-off that does not reach etcd fails for its caller, and the key is deleted
 * again until etcd answers ({@link StrandedKeys}): else, on the shared lease, it would block the name for the client's
 * lifetime. The engine waits; this class answers single attempts ({@link EtcdLockAttempts}) and a watch per name wakes
 * the engine when the key a waiter waits for is deleted.
 *
 * <h2>Tokens</h2>
 * The fencing token is the revision at which the owner was seen to hold: its key's create revision when the put
 * found it lowest at once, the revision of the read that found no earlier key, or that of the hand-off write. Each
 * comes after the previous holder's key was deleted or rewritten, which comes after that holder's token, so tokens
 * grow strictly per name; etcd's revision never goes back, across clients and restarts.
 */
public final class EtcdLockOps implements RemoteLockOps {

    /**
     * Which keys an instance puts. {@link #EXCLUSIVE} (the plain lock) and {@link #FAIR} share one queue per name;
     * {@link #READ} and {@link #WRITE} share the read-write lock's and mark their keys' names.
     */
    public enum Kind {
        /** The plain lock: the client's waiting threads share one key per name, and a held lock may be handed off. */
        EXCLUSIVE(""),
        /** The fair lock: every waiting owner puts its own key, and a held lock never passes to another owner. */
        FAIR(""),
        READ("read-"), WRITE("write-"),
        /** A read taken by the owner of the write lock (a downgrade): granted at once, keeps writers out. */
        DOWNGRADE("down-");

        final String marker;

        Kind(String marker) {
            this.marker = marker;
        }
    }

    final EtcdSession session;
    private final Function<String, String> prefixOf;
    private final String clientId;
    private final AtomicLong keySequence = new AtomicLong();
    private final EtcdLockAttempts attempts;
    /** Held grants by key, for an expired shared lease and the fenced store. */
    private final Map<String, Grant> held = new ConcurrentHashMap<>();
    private final BiConsumer<Grant, String> lostSink;
    final Kind kind;
    /** For {@link Kind#READ}: the write half of the same read-write locks, whose owners downgrade. */
    private volatile EtcdLockOps writeHalf;

    /**
     * @param prefixOf maps a lock name to its key prefix (ending in {@code /})
     * @param lostSink told of grants lost with an expired shared lease
     * @param kind which lock; a {@link Kind#READ} half must be told its write half ({@link #downgradesFrom})
     */
    public EtcdLockOps(EtcdSession session, Function<String, String> prefixOf, String clientId,
                       BiConsumer<Grant, String> lostSink, Kind kind) {
        this.kind = kind;
        this.session = session;
        this.prefixOf = prefixOf;
        this.clientId = clientId;
        this.lostSink = lostSink;
        this.attempts = new EtcdLockAttempts(this);
        session.onSharedLeaseLost(this::sharedLeaseLost);
        session.keepAliveWhile(() -> !attempts.waiting.isEmpty());
    }

    /** Tells a read half the write half whose holders it grants a read at once (downgrade). */
    public void downgradesFrom(EtcdLockOps write) {
        if (kind != Kind.READ || write.kind != Kind.WRITE) {
            throw new IllegalArgumentException(String.format("a %s half cannot downgrade from a %s half", kind,
                    write.kind));
        }
        this.writeHalf = write;
    }

    String nextKeySuffix(Kind k) {
        return k.marker + clientId + "-" + Long.toString(keySequence.incrementAndGet(), 36);
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    /** One look ({@link EtcdLockAttempts}); the owner of a write half's hold here downgrades. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        String prefix = prefixOf.apply(request.name());
        EtcdLockOps write = writeHalf;
        boolean downgrade = write != null && write.held.values().stream().anyMatch(g -> g.ownerId()
                .equals(request.ownerId()) && g.backendState(EtcdGrantState.class).key().startsWith(prefix));
        return attempts.attempt(request, prefix, downgrade ? Kind.DOWNGRADE : kind, entry);
    }

    /** The client's one watch of deletions under the prefix, waking only for a key a waiter here waits for. */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        String prefix = prefixOf.apply(name);
        return session.queueWatches.subscribe(prefix,
                deleted -> deleted.stream().anyMatch(k -> attempts.waiting.wakes(prefix, k)), changed);
    }

    /** Deletes the waiter's key (retried until etcd answers); without an entry, its owner's waiting keys. */
    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        return entry != null ? attempts.waiting.abandon(entry)
                : attempts.waiting.abandonOwner(prefixOf.apply(request.name()), request.ownerId());
    }

    /** For the fenced store, which checks the very key of that hold; {@code null} if none. */
    public Grant heldGrant(String name, long token) {
        return held.values().stream().filter(g -> g.fencingToken() == token && g.name().equals(name)).findAny()
                .orElse(null);
    }

    /** -1 if this client holds none there. */
    public long heldToken(String key) {
        Grant g = held.get(key);
        return g == null ? -1 : g.fencingToken();
    }

    /** An attempt holds: remember the key for losses and fixed lease ends. */
    void granted(Grant grant) {
        held.put(grant.backendState(EtcdGrantState.class).key(), grant);
    }

    /**
     * etcd's TTLs are whole seconds, so a fixed lease would outlive its time: at its exact end, told by the engine,
     * the key is deleted if still this grant's, retried until etcd answers. A crashed holder's goes with its lease.
     */
    @Override
    public void leaseEnded(Grant grant) {
        EtcdGrantState hold = grant.backendState(EtcdGrantState.class);
        if (held.remove(hold.key(), grant)) {
            session.stranded().release(hold);
        }
    }

    private void sharedLeaseLost(long leaseId) {
        for (Grant g : List.copyOf(held.values())) {
            EtcdGrantState hold = g.backendState(EtcdGrantState.class);
            if (hold.leaseId() == leaseId && held.remove(hold.key(), g)) {
                lostSink.accept(g, "its etcd lease " + Long.toHexString(leaseId) + " expired");
            }
        }
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        EtcdGrantState hold = grant.backendState(EtcdGrantState.class);
        // The server's answer alone decides: a renewal that read the key just after this delete may have dropped the
        // grant from the table already.
        return session.stranded().release(hold).whenComplete((deleted, e) -> held.remove(hold.key(), grant));
    }

    @Override
    public boolean supportsHandOff() {
        return kind == Kind.EXCLUSIVE;
    }

    @Override
    public boolean shared() {
        return kind == Kind.READ;
    }

    @Override
    public boolean fair() {
        return kind == Kind.FAIR;
    }

    /**
     * Rewrites our key for the new owner, on the lease its hold needs, if it is still ours: one transaction, the lock
     * never free in between and our place kept. The new token is that write's revision, newer than every token before.
     */
    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        EtcdGrantState hold = from.backendState(EtcdGrantState.class);
        long sentAt = request.time().nanoTime();
        boolean watchdog = request.watchdog();
        long ttl = watchdog ? session.sharedTtlSeconds() : EtcdSession.ttlSecondsFor(request.leaseMillis());
        return session.leaseFor(watchdog, request.leaseMillis()).thenCompose(leaseId -> session.bounded(
                        session.client().getKVClient().txn()
                                .If(new Cmp(bytes(hold.key()), Cmp.Op.EQUAL,
                                        CmpTarget.createRevision(hold.createRevision())))
                                .Then(Op.put(bytes(hold.key()), EtcdKeys.value(request.ownerId(), session.clientName,
                                        ttl, -1), PutOption.builder().withLeaseId(leaseId).build()))
                                .commit(), "hand off " + hold.key())
                .thenCompose(t -> {
                    if (!t.isSucceeded()) {
                        held.remove(hold.key(), from);
                        if (!watchdog) {
                            session.revoke(leaseId);
                        }
                        return CompletableFuture.completedFuture((Grant) null);
                    }
                    if (hold.ownLease() && hold.leaseId() != leaseId) {
                        session.revoke(hold.leaseId());
                    }
                    long token = t.getHeader().getRevision();
                    EtcdGrantState next = new EtcdGrantState(hold.key(), hold.createRevision(), leaseId, !watchdog);
                    return session.boundStart(watchdog, leaseId, sentAt).thenApply(ttlStart -> {
                        held.remove(hold.key(), from);
                        if (ttlStart == null) {
                            return null; // the shared lease expired: the key is gone
                        }
                        Grant grant = new Grant(request, token, Math.min(sentAt, ttlStart), next);
                        granted(grant);
                        return grant;
                    });
                })).whenComplete((g, e) -> {
                    if (e != null) {
                        // whether the rewrite landed or not, the key keeps its create revision: delete it until etcd
                        // answers, or it would hold the name for as long as this client keeps its lease alive
                        held.remove(hold.key(), from);
                        session.stranded().strand(hold);
                    }
                });
    }

    /** Deletes a waiting key, retried until etcd answers; completes with whether the first try did, never failing. */
    CompletableFuture<Boolean> deleteOrStrand(String key, long createRevision) {
        return session.deleteIfCreatedAt(key, createRevision).handle((deleted, e) -> {
            if (e != null) {
                session.stranded().delete(key, createRevision, 0);
                return false;
            }
            return deleted;
        });
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return session.renew(grants, "lock keys").thenApply(lost -> {
            lost.forEach(g -> held.remove(g.backendState(EtcdGrantState.class).key(), g));
            return lost;
        });
    }

    /** One read: the holder key's value and revisions; for the plain and fair lock the other keys wait. */
    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        return holderAndCount(name).thenApply(h -> {
            KeyValue kv = h.kv();
            if (kv == null) {
                return null;
            }
            boolean queue = kind == Kind.EXCLUSIVE || kind == Kind.FAIR;
            return new LockHolder(EtcdKeys.owner(kv), EtcdKeys.clientName(kv), EtcdKeys.since(kv), Optional.empty(),
                    OptionalLong.of(EtcdKeys.token(kv)),
                    queue && h.keys() >= 1 ? OptionalInt.of((int) (h.keys() - 1)) : OptionalInt.empty());
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return holderAndCount(name).thenApply(h -> h.kv() != null);
    }

    /** A holder's key (or {@code null}) and how many keys the lock's prefix has (holders and waiters). */
    private record HolderKey(KeyValue kv, long keys) {
    }

    /** The lowest key under the prefix if it is of this half's kind; for a read half else a downgraded reader's. */
    private CompletableFuture<HolderKey> holderAndCount(String name) {
        String prefix = prefixOf.apply(name);
        GetOption lowest = GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
        return session.bounded(session.client().getKVClient().txn()
                        .Then(Op.get(bytes(prefix), lowest), Op.get(bytes(prefix + Kind.DOWNGRADE.marker), lowest))
                        .commit(), "read " + prefix)
                .thenApply(r -> {
                    List<KeyValue> first = r.getGetResponses().get(0).getKvs();
                    List<KeyValue> down = r.getGetResponses().get(1).getKvs();
                    KeyValue kv = first.isEmpty() ? null : first.get(0);
                    String k = kv == null ? "" : EtcdKeys.string(kv.getKey());
                    KeyValue holder = switch (kind) {
                        case EXCLUSIVE, FAIR -> kv;
                        case WRITE -> k.startsWith(prefix + Kind.WRITE.marker) ? kv : null;
                        default -> k.startsWith(prefix + Kind.READ.marker) ? kv
                                : down.isEmpty() ? null : down.get(0);
                    };
                    return new HolderKey(holder, r.getGetResponses().get(0).getCount());
                });
    }

    /** Deletes the holder's key (waiters' keys stay queued); the next waiter is woken by its watch. */
    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        return holderAndCount(name).thenApply(HolderKey::kv).thenCompose(kv -> kv == null
                ? CompletableFuture.completedFuture(false)
                : session.deleteIfCreatedAt(EtcdKeys.string(kv.getKey()), kv.getCreateRevision()));
    }
}
