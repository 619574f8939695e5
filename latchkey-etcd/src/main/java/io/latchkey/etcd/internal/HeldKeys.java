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
 * they are on, plus one transaction reading every key. A key is still held if it exists with its create revision,
 * on its lease, and that lease is alive.
 */
final class HeldKeys {

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
        Op[] reads = new Op[list.size()];
        for (int i = 0; i < list.size(); i++) {
            EtcdGrantState hold = list.get(i).backendState(EtcdGrantState.class);
            leases.add(hold.leaseId());
            reads[i] = Op.get(bytes(hold.key()), GetOption.DEFAULT);
        }
        Map<Long, CompletableFuture<Boolean>> alive = new ConcurrentHashMap<>();
        for (long lease : leases) {
            alive.put(lease, session.keepAliveOnce(lease));
        }
        CompletableFuture<TxnResponse> read = session.bounded(session.client().getKVClient().txn().Then(reads)
                .commit(), "read " + list.size() + " " + what);
        return CompletableFuture.allOf(alive.values().toArray(new CompletableFuture<?>[0])).thenCombine(read,
                (x, r) -> {
                    Set<Grant> lost = new HashSet<>();
                    for (int i = 0; i < list.size(); i++) {
                        Grant g = list.get(i);
                        EtcdGrantState hold = g.backendState(EtcdGrantState.class);
                        List<KeyValue> kvs = r.getGetResponses().get(i).getKvs();
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
