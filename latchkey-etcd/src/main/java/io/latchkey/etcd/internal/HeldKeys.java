package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.core.Grant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One renewal batch of held keys ({@link EtcdGrantState}s: lock holds and leased permits alike): one keep-alive per lease
 * they are on, plus transactions reading every key, at most {@link #MAX_TXN_OPS} each. A key is still held if it
 * exists with its create revision, on its lease, and that lease is alive.
 */
final class HeldKeys {

    /**
     * Reads per transaction: etcd refuses a transaction of more operations than its {@code --max-txn-ops} (128 by
     * default) with "too many operations in txn request", which would fail the renewal of every key of the batch.
     */
    static final int MAX_TXN_OPS = 128;

    private HeldKeys() {
    }

    /**
     * Renews {@code grants} (whose backend state is an {@link EtcdGrantState}); completes with those no longer held.
     *
     * @param what what the keys are, for the timeout message ({@code "lock keys"}, {@code "permit keys"})
     */
    static CompletableFuture<Set<Grant>> renew(EtcdSession session, Collection<Grant> grants, String what) {
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        List<Grant> list = new ArrayList<>(grants);
        Set<Long> leases = new HashSet<>();
        List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        for (int from = 0; from < list.size(); from += MAX_TXN_OPS) {
            Op[] ops = new Op[Math.min(MAX_TXN_OPS, list.size() - from)];
            for (int i = 0; i < ops.length; i++) {
                EtcdGrantState hold = list.get(from + i).backendState(EtcdGrantState.class);
                leases.add(hold.leaseId());
                ops[i] = Op.get(bytes(hold.key()), GetOption.DEFAULT);
            }
            reads.add(session.bounded(session.client().getKVClient().txn().Then(ops).commit(),
                    "read " + ops.length + " of " + list.size() + " " + what));
        }
        Map<Long, CompletableFuture<Boolean>> alive = new ConcurrentHashMap<>();
        for (long lease : leases) {
            alive.put(lease, session.keepAliveOnce(lease));
        }
        CompletableFuture<Void> read = CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]));
        return CompletableFuture.allOf(alive.values().toArray(new CompletableFuture<?>[0])).thenCombine(read,
                (x, y) -> {
                    Set<Grant> lost = new HashSet<>();
                    for (int i = 0; i < list.size(); i++) {
                        Grant g = list.get(i);
                        EtcdGrantState hold = g.backendState(EtcdGrantState.class);
                        List<KeyValue> kvs = reads.get(i / MAX_TXN_OPS).join().getGetResponses()
                                .get(i % MAX_TXN_OPS).getKvs();
                        boolean ours = !kvs.isEmpty() && kvs.get(0).getCreateRevision() == hold.createRevision()
                                && kvs.get(0).getLease() == hold.leaseId();
                        if (!ours || !alive.get(hold.leaseId()).join()) {
                            lost.add(g);
                        }
                    }
                    return lost;
                });
    }
}
