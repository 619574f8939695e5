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
 * Lists the held (plain and fair) locks of one client's namespace for {@code latchkey inspect}, in three pipelined
 * rounds: the lock paths under {@code …/locks}, the children of each matching path, the data of each queue's first
 * child ({@link ZkLockOps#holderAt}). Read-write locks ({@code …/rwlocks}) are not listed.
 *
 * <p>Fields, as ZooKeeper knows them: the holder is the child with the lowest sequence; {@code owner} is the owner
 * id a Latchkey client writes into its node ({@code <clientId>:<thread or lease id>}), or {@code session 0x…} (the
 * ephemeral owner) for a node without data; a Curator {@code InterProcessMutex} node shows whatever data Curator
 * wrote (by default the client's IP address). {@code holdCount} is 1: reentrant holds are counted by the holder's
 * client, not on the server. {@code waiters} is the number of other children, every one of them queued.
 * {@code remainingLease} is the holder's session timeout, which a Latchkey client writes into its node: the session,
 * not a lease, keeps the node, and a crashed holder's node goes at most that long after its last heartbeat (a fixed
 * lease is enforced by the holder's client and not shown). {@code fencingToken} is the holder's token (see
 * {@link ZooKeeperLockClient}): for a node this client holds, its grant's token; for a queued grant, the token its
 * holder wrote into the node right after the grant; for a node rewritten by a hand-off, the write's mzxid; otherwise
 * the node's czxid, which is the token of a lock taken without waiting (and, for the few milliseconds until a
 * queued grant's write lands, a lower bound of its token).
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
        List<String> names = new ArrayList<>();
        for (String child : await(ZkAsync.listed(session, locksRoot), "list " + locksRoot)) {
            String name = ZNodeNames.unescape(child);
            if (LockInspector.matches(pattern, name)) {
                names.add(name);
            }
        }
        names.sort(null);
        List<CompletableFuture<ZkLockOps.Holder>> holders = new ArrayList<>(names.size());
        for (String name : names) {
            holders.add(lockOps.holderAt(lockPath(name)));
        }
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
