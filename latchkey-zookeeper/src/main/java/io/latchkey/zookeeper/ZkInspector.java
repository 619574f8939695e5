package io.latchkey.zookeeper;

import io.latchkey.LockHolder;
import io.latchkey.LockUnavailableException;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.latchkey.zookeeper.internal.ZNodeNames;
import io.latchkey.zookeeper.internal.ZkAsync;
import io.latchkey.zookeeper.internal.ZkHolders;
import io.latchkey.zookeeper.internal.ZkSession;
import io.latchkey.zookeeper.internal.ZkLockOps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Lists the held plain and fair locks (not read-write locks) of one client's namespace for {@code latchkey inspect},
 * in three pipelined rounds: the lock paths under {@code …/locks}, the children of each matching path, the data of
 * each queue's first child ({@link ZkLockOps#holderAt}).
 *
 * <p>The holder is the child with the lowest sequence; {@code owner} is the owner id written in its node, or
 * {@code session 0x…} for a node without one (a Curator node shows Curator's data, by default the client's IP).
 * {@code holdCount} is 1 (reentrant holds are counted by the holder's client); {@code waiters} the other children.
 * {@code remainingLease} is the holder's session timeout written in its node: a crashed holder's node goes at most
 * that long after its last heartbeat (a fixed lease is the holder client's and not shown). {@code fencingToken} is
 * this client's grant's token, else the token written into the node after a queued grant, else a hand-off's mzxid,
 * else the czxid (the token of a lock taken without waiting; until a queued grant's write lands, a lower bound).
 */
final class ZkInspector {

    private final ZkSession session;
    private final String locksRoot;
    private final ZkLockOps lockOps;

    /**
     * @param locksRoot the full path (Curator namespace applied) of the parent of every lock path
     * @param lockOps the plain lock's ops, which read a queue's holder
     */
    ZkInspector(ZkSession session, String locksRoot, ZkLockOps lockOps) {
        this.session = session;
        this.locksRoot = locksRoot;
        this.lockOps = lockOps;
    }

    List<LockInfo> list(String pattern) {
        List<String> names = await(ZkAsync.listed(session, locksRoot), "list " + locksRoot).stream()
                .map(ZNodeNames::unescape).filter(name -> LockInspector.matches(pattern, name)).sorted().toList();
        List<CompletableFuture<ZkLockOps.Holder>> holders = names.stream()
                .map(name -> lockOps.holderAt(lockPath(name))).toList(); // all sent before the first is awaited
        List<LockInfo> result = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            ZkLockOps.Holder held = await(holders.get(i), "read the holder of " + lockPath(names.get(i)));
            if (held == null) {
                continue; // not held, or released since the listing
            }
            LockHolder h = held.holder();
            long sessionMs = ZkHolders.field(ZkHolders.lines(held.node().data()), ZkLockOps.SESSION_TIMEOUT);
            result.add(new LockInfo(names.get(i), h.owner(), 1, h.fencingToken(),
                    sessionMs > 0 ? Optional.of(Duration.ofMillis(sessionMs)) : Optional.empty(), h.waiters(),
                    LockInfo.LOCK, sessionMs > 0 ? "lease: session timeout" : "", h.clientName(), h.heldSince()));
        }
        return result;
    }

    private String lockPath(String name) {
        return locksRoot + "/" + ZNodeNames.escape(name);
    }

    private <T> T await(CompletableFuture<T> future, String operation) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof LockUnavailableException u) {
                throw u;
            }
            throw session.unavailable(operation, cause);
        }
    }
}
