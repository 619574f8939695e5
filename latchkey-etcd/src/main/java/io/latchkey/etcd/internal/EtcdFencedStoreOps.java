package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.latchkey.core.FencedWrite;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteFencedStoreOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The etcd fenced store: each key is an etcd key {@code latchkey/[<namespace>/]stores/<escaped lock name>/<escaped
 * key>}, on no lease. A write is one transaction: if the holder's key still has the hold's create revision (release,
 * lease end and force-unlock delete it; a re-created key has another) and the mod revision read just before (a
 * hand-off rewrites it), and for compare-and-set and delete the value or existence matches, put or delete; else read
 * the holder's key to tell a stale lease from a changed value. So a write whose hold is gone changes nothing. Only
 * this client's holds are found: a lease of another client is refused as stale.
 */
public final class EtcdFencedStoreOps implements RemoteFencedStoreOps {

    private static final int MAX_ROUNDS = 20;

    private final EtcdSession session;
    private final List<EtcdLockOps> lockOps;
    private final Function<String, String> storePrefixOf;

    /**
     * @param lockOps the ops whose holds fence the store (the plain and the fair lock: one queue per name)
     * @param storePrefixOf a lock name's store prefix, ending in {@code /}
     */
    public EtcdFencedStoreOps(EtcdSession session, List<EtcdLockOps> lockOps, Function<String, String> storePrefixOf) {
        this.session = session;
        this.lockOps = List.copyOf(lockOps);
        this.storePrefixOf = storePrefixOf;
    }

    private String dataKey(String lockName, String key) {
        return storePrefixOf.apply(lockName) + EtcdKeys.escape(key);
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        String k = dataKey(lockName, key);
        return session.bounded(session.client().getKVClient().get(bytes(k)), "fenced store get " + k)
                .thenApply(r -> r.getKvs().isEmpty() ? Optional.empty()
                        : Optional.of(r.getKvs().get(0).getValue().getBytes()));
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        Grant grant = lockOps.stream().map(o -> o.heldGrant(lockName, token)).filter(Objects::nonNull).findFirst()
                .orElse(null);
        if (grant == null) {
            return CompletableFuture.completedFuture(FencedWrite.Outcome.STALE);
        }
        EtcdGrantState hold = grant.backendState(EtcdGrantState.class);
        String operation = "fenced store " + write.kind() + " of lock " + lockName;
        return session.bounded(session.client().getKVClient().get(bytes(hold.key())), operation)
                .thenCompose(r -> round(grant, hold, r.getKvs().isEmpty() ? null : r.getKvs().get(0),
                        dataKey(lockName, write.key()), write, operation, 0));
    }

    private boolean stillOurs(Grant grant, EtcdGrantState hold, KeyValue kv) {
        return kv != null && kv.getCreateRevision() == hold.createRevision()
                && grant.ownerId().equals(EtcdKeys.owner(kv));
    }

    private CompletableFuture<FencedWrite.Outcome> round(Grant grant, EtcdGrantState hold, KeyValue lockKv, String dataKey,
                                                         FencedWrite write, String operation, int round) {
        if (!stillOurs(grant, hold, lockKv)) {
            return CompletableFuture.completedFuture(FencedWrite.Outcome.STALE);
        }
        if (round >= MAX_ROUNDS) {
            return CompletableFuture.failedFuture(session.unavailable(operation + ": the holder's key kept changing ("
                    + MAX_ROUNDS + " tries)", null));
        }
        ByteSequence lockKey = bytes(hold.key());
        ByteSequence key = bytes(dataKey);
        List<Cmp> cmps = new ArrayList<>(3);
        cmps.add(new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.createRevision(hold.createRevision())));
        cmps.add(new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.modRevision(lockKv.getModRevision())));
        Op then;
        switch (write.kind()) {
            case PUT -> then = Op.put(key, ByteSequence.from(write.value()), PutOption.DEFAULT);
            case COMPARE_AND_SET -> {
                cmps.add(write.expected() == null ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                        : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(ByteSequence.from(write.expected()))));
                then = Op.put(key, ByteSequence.from(write.value()), PutOption.DEFAULT);
            }
            default -> {
                cmps.add(new Cmp(key, Cmp.Op.GREATER, CmpTarget.createRevision(0)));
                then = Op.delete(key, DeleteOption.DEFAULT);
            }
        }
        return session.bounded(session.client().getKVClient().txn().If(cmps.toArray(new Cmp[0])).Then(then)
                        .Else(Op.get(lockKey, GetOption.DEFAULT)).commit(), operation)
                .thenCompose(r -> {
                    if (r.isSucceeded()) {
                        return CompletableFuture.completedFuture(FencedWrite.Outcome.APPLIED);
                    }
                    List<KeyValue> kvs = r.getGetResponses().get(0).getKvs();
                    KeyValue now = kvs.isEmpty() ? null : kvs.get(0);
                    if (!stillOurs(grant, hold, now)) {
                        return CompletableFuture.completedFuture(FencedWrite.Outcome.STALE);
                    }
                    if (now.getModRevision() == lockKv.getModRevision()) {
                        // the hold compared as current in that very transaction: the value did not match
                        return CompletableFuture.completedFuture(FencedWrite.Outcome.UNCHANGED);
                    }
                    // our own key was rewritten (its token recorded): compare again with its new revision
                    return round(grant, hold, now, dataKey, write, operation, round + 1);
                });
    }
}
