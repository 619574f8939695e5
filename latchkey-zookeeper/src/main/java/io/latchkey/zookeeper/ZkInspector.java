package io.latchkey.zookeeper;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.Grant;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.latchkey.zookeeper.internal.HeldNodes;
import io.latchkey.zookeeper.internal.LockNodes;
import io.latchkey.zookeeper.internal.ZNodeNames;
import io.latchkey.zookeeper.internal.ZkGrantState;
import io.latchkey.zookeeper.internal.ZkHolders;
import io.latchkey.zookeeper.internal.ZkSession;
import io.latchkey.zookeeper.internal.ZkLockOps;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Lists the held (plain and fair) locks of one client's namespace for {@code latchkey inspect}, in three pipelined
 * rounds: the lock paths under {@code …/locks}, the children of each matching path, the data of each queue's first
 * child. Read-write locks ({@code …/rwlocks}) are not listed.
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
    private final HeldNodes held;

    /** @param locksRoot the full path (Curator namespace applied) of the parent of every lock path */
    ZkInspector(ZkSession session, String locksRoot, HeldNodes held) {
        this.session = session;
        this.locksRoot = locksRoot;
        this.held = held;
    }

    List<LockInfo> list(String pattern) {
        ZooKeeper zk = session.zk();
        List<String> names = new ArrayList<>();
        for (String child : await(children(zk, locksRoot), "list " + locksRoot)) {
            String name = ZNodeNames.unescape(child);
            if (LockInspector.matches(pattern, name)) {
                names.add(name);
            }
        }
        names.sort(null);
        List<CompletableFuture<List<String>>> queues = new ArrayList<>(names.size());
        for (String name : names) {
            queues.add(children(zk, lockPath(name)));
        }
        List<String> heldNames = new ArrayList<>();
        List<String> holders = new ArrayList<>();
        List<Integer> waiters = new ArrayList<>();
        List<CompletableFuture<Node>> nodes = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            List<String> queue = new ArrayList<>();
            for (String child : await(queues.get(i), "list " + lockPath(names.get(i)))) {
                if (LockNodes.sequenceNumber(child) >= 0) {
                    queue.add(child);
                }
            }
            if (queue.isEmpty()) {
                continue;
            }
            String holder = LockNodes.sorted(queue).get(0);
            heldNames.add(names.get(i));
            holders.add(lockPath(names.get(i)) + "/" + holder);
            waiters.add(queue.size() - 1);
            nodes.add(data(zk, holders.get(holders.size() - 1)));
        }
        Map<String, Grant> ours = new HashMap<>();
        for (Grant g : held.all()) {
            ours.put(g.backendState(ZkGrantState.class).path(), g);
        }
        List<LockInfo> result = new ArrayList<>(heldNames.size());
        for (int i = 0; i < heldNames.size(); i++) {
            Node node = await(nodes.get(i), "read " + holders.get(i));
            if (node == null) {
                continue; // released since the listing
            }
            Grant mine = ours.get(holders.get(i));
            String[] lines = lines(node);
            long written = field(lines, ZkLockOps.TOKEN);
            OptionalLong token = mine != null ? OptionalLong.of(mine.fencingToken())
                    : written >= 0 ? OptionalLong.of(written)
                    : node.stat.getMzxid() != node.stat.getCzxid() ? OptionalLong.of(node.stat.getMzxid())
                    : OptionalLong.of(node.stat.getCzxid());
            long sessionMs = field(lines, ZkLockOps.SESSION_TIMEOUT);
            Optional<Duration> lease = sessionMs > 0 ? Optional.of(Duration.ofMillis(sessionMs)) : Optional.empty();
            result.add(new LockInfo(heldNames.get(i), owner(node, lines), 1, token, lease,
                    OptionalInt.of(waiters.get(i)), LockInfo.LOCK,
                    sessionMs > 0 ? "lease: session timeout" : "")
                    .withHolder(ZkHolders.clientName(lines),
                            Optional.of(java.time.Instant.ofEpochMilli(node.stat.getMtime()))));
        }
        return result;
    }

    private String lockPath(String name) {
        return locksRoot + "/" + ZNodeNames.escape(name);
    }

    private static String[] lines(Node node) {
        return (node.data == null ? "" : new String(node.data, StandardCharsets.UTF_8)).split("\n", -1);
    }

    /** The number after {@code prefix} on one of {@code lines} (not the first, the owner), or -1. */
    private static long field(String[] lines, String prefix) {
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith(prefix)) {
                try {
                    return Long.parseLong(lines[i].substring(prefix.length()).strip());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    private static String owner(Node node, String[] lines) {
        String data = lines[0];
        if (data.isEmpty() || data.chars().anyMatch(Character::isISOControl)) {
            return "session 0x" + Long.toHexString(node.stat.getEphemeralOwner());
        }
        return data;
    }

    /** The children of {@code path}; none if it does not exist (or went since it was listed). */
    private CompletableFuture<List<String>> children(ZooKeeper zk, String path) {
        CompletableFuture<List<String>> result = new CompletableFuture<>();
        zk.getChildren(path, false, (rc, p, ctx, children) -> {
            Code code = Code.get(rc);
            if (code == Code.OK) {
                result.complete(children);
            } else if (code == Code.NONODE) {
                result.complete(List.of());
            } else {
                result.completeExceptionally(session.unavailable("list " + p, KeeperException.create(code, p)));
            }
        }, null);
        return session.bounded(result, "list " + path);
    }

    /** The data and stat of {@code path}; {@code null} if it is gone. */
    private CompletableFuture<Node> data(ZooKeeper zk, String path) {
        CompletableFuture<Node> result = new CompletableFuture<>();
        zk.getData(path, false, (rc, p, ctx, data, stat) -> {
            Code code = Code.get(rc);
            if (code == Code.OK) {
                result.complete(new Node(data, stat));
            } else if (code == Code.NONODE) {
                result.complete(null);
            } else {
                result.completeExceptionally(session.unavailable("read " + p, KeeperException.create(code, p)));
            }
        }, null);
        return session.bounded(result, "read " + path);
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

    private record Node(byte[] data, Stat stat) {
    }
}
