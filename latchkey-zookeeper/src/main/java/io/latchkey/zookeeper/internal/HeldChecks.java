package io.latchkey.zookeeper.internal;

import io.latchkey.core.Grant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/**
 * The watchdog's "renewal" of ephemeral nodes (locks, watchdog permits), which the session keeps alive: a check that
 * each is still the node granted (same czxid and session), all {@code exists} calls in one round trip.
 */
final class HeldChecks {

    private HeldChecks() {
    }

    /** @return the grants whose node is gone or no longer ours, within the operation timeout */
    static CompletableFuture<Set<Grant>> lost(ZkSession session, Collection<Grant> grants, String what) {
        CompletableFuture<Set<Grant>> result = new CompletableFuture<>();
        if (grants.isEmpty()) {
            result.complete(Set.of());
            return result;
        }
        ZooKeeper zk = session.zkOrFail(result);
        if (zk == null) {
            return result;
        }
        long sessionId = zk.getSessionId();
        Set<Grant> lost = ConcurrentHashMap.newKeySet();
        AtomicInteger pending = new AtomicInteger(grants.size());
        for (Grant g : grants) {
            ZkGrantState hold = g.backendState(ZkGrantState.class);
            zk.exists(hold.path(), false, (rc, path, ctx, stat) -> {
                Code code = Code.get(rc);
                if (code == Code.OK) {
                    if (stat.getCzxid() != hold.czxid() || stat.getEphemeralOwner() != hold.sessionId()) {
                        lost.add(g);
                    }
                } else if (code == Code.NONODE || code == Code.SESSIONEXPIRED) {
                    lost.add(g);
                } else if (!result.isDone()) {
                    result.completeExceptionally(session.unavailable("check " + path, null));
                }
                if (pending.decrementAndGet() == 0) {
                    result.complete(new HashSet<>(lost));
                }
            }, null);
        }
        if (sessionId != 0) {
            grants.stream().filter(g -> g.backendState(ZkGrantState.class).sessionId() != sessionId).forEach(lost::add);
        }
        return session.bounded(result, "check " + grants.size() + " " + what);
    }
}
