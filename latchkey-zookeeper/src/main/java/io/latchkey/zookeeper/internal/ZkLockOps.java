package io.latchkey.zookeeper.internal;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/**
 * The remote half of the ZooKeeper lock family: an ephemeral sequential child per waiting or holding owner under the
 * lock's path, the first in sequence order holds. A waiter's first attempt ({@link ZkLockAttempt}) creates its node
 * and answers granted, or queued with the node as its entry; later attempts list the queue again; {@link #withdraw}
 * deletes the node. The engine waits, woken by a watch on the one node each waiter must outlast
 * ({@link LockWakeUps}): its deletion or hand-off wakes only the client whose waiter is next, never a herd.
 *
 * <p>{@link Kind#EXCLUSIVE} is the plain and fair lock (Curator's {@code lock-} children, one queue); only the plain
 * one hands a held node to another owner of this client, and each waiting owner of the {@linkplain #fair() fair}
 * one has its own node. {@link Kind#WRITE} and {@link Kind#READ} share one path and one {@link HeldNodes} table,
 * like Curator's read-write lock ({@code __WRIT__} / {@code __READ__}): a reader passes its own owner's writers,
 * which makes a write → read downgrade possible.
 *
 * <h2>Round trips</h2>
 * An acquire sends the create and the getChildren back to back: ZooKeeper serves one session's requests in order,
 * so the listing already has our node and the pair costs one round trip; release is one delete (Curator's mutex:
 * three). A lone re-acquire right after our own release skips the listing ({@link SoloHistory}).
 *
 * <h2>Tokens</h2>
 * The fencing token of a grant is the larger of our node's czxid and the lock path's pzxid in the listing that
 * granted it (the zxid of its latest child change, which is at or after the deletion of every earlier holder's
 * node); a {@linkplain #handOff hand-off} rewrites the node's data and the new owner's token is that write's
 * mzxid. Every earlier holder's token was issued before its node's deletion, and every later holder's listing
 * sees that deletion, so tokens grow strictly per lock path with no extra round trip. A plain czxid would not:
 * a waiter queued before a hand-off has a smaller czxid than the hand-off's token.
 */
public final class ZkLockOps implements RemoteLockOps {

    /** Which child names this instance creates and how it decides it holds. */
    public enum Kind {
        EXCLUSIVE(LockNodes.LOCK), READ(LockNodes.READ), WRITE(LockNodes.WRITE);

        final String prefix;

        Kind(String prefix) {
            this.prefix = prefix;
        }
    }

    final ZkSession session;
    final NodeDeletes deletes;
    final Function<String, String> pathOf;
    final Kind kind;
    private final boolean fair;
    final HeldNodes held;
    final LockWakeUps wakeUps;
    private final Consumer<Grant> lostSink;
    /** The client's name, a line of each lock node's data. */
    final String clientName;
    final SoloHistory solo = new SoloHistory();

    /**
     * @param fair a fair lock ({@link RemoteLockOps#fair()}), only with {@link Kind#EXCLUSIVE}
     * @param held the table of our held nodes, shared by every lock of the client
     * @param lostSink told about every grant whose node vanished with an expired session
     */
    public ZkLockOps(ZkSession session, Function<String, String> pathOf, Kind kind, boolean fair,
                     HeldNodes held, Consumer<Grant> lostSink, String clientName) {
        this.clientName = clientName;
        if (fair && kind != Kind.EXCLUSIVE) {
            throw new IllegalArgumentException(String.format("a %s lock cannot be fair", kind));
        }
        this.session = session;
        this.deletes = new NodeDeletes(session);
        this.pathOf = pathOf;
        this.kind = kind;
        this.fair = fair;
        this.held = held;
        this.wakeUps = new LockWakeUps(session);
        this.lostSink = lostSink;
        session.onSessionLost(this::sessionLost);
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    /** One look at the queue ({@link ZkLockAttempt}); {@code entry} is the waiter's node from its last answer. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        return new ZkLockAttempt(this, request, pathOf.apply(request.name())).start(entry);
    }

    /** Told when a node that one of this ops' waiters of {@code name} must outlast is deleted or rewritten. */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return wakeUps.subscribe(pathOf.apply(name), changed);
    }

    /**
     * Deletes the waiter's node ({@link NodeDeletes}). Without an entry there is nothing to do: a failed attempt
     * deletes what it created itself, even a node whose create answer was lost, so no failed waiter keeps a node.
     */
    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        ZkQueueEntry q = entry == null ? null : ZkQueueEntry.parse(entry);
        return q == null ? CompletableFuture.completedFuture(null)
                : deleteNode(pathOf.apply(request.name()) + "/" + q.node(), q.sessionId()).thenApply(ok -> null);
    }

    /** Called by an attempt once it holds: remember the node (the engine ends a fixed lease: {@link #leaseEnded}). */
    void granted(Grant grant) {
        held.put(grant.backendState(ZkGrantState.class).path(), grant);
    }

    /** A grant nobody received (its attempt had already failed): forget it and delete its node. */
    void dropGrant(Grant grant) {
        ZkGrantState hold = grant.backendState(ZkGrantState.class);
        held.remove(hold.path(), grant);
        deleteNode(hold.path(), hold.sessionId());
    }

    /**
     * ZooKeeper has no per-node expiry: the holder's client deletes its node at the fixed lease's end (a crashed
     * holder's node goes with its session), only while it still counts the grant as held ({@link NodeDeletes}).
     */
    @Override
    public void leaseEnded(Grant grant) {
        ZkGrantState hold = grant.backendState(ZkGrantState.class);
        if (held.remove(hold.path(), grant)) {
            deleteNode(hold.path(), hold.sessionId());
        }
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        ZkGrantState hold = grant.backendState(ZkGrantState.class);
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        // Only a delete that is retried gets a timer (none on the hot path): the caller hears of the outage within
        // the operation timeout while the retries go on.
        Runnable onRetry = () -> session.bounded(answer, "delete " + hold.path());
        deletes.delete(hold.path(), hold.sessionId(), onRetry).whenComplete((ok, e) -> {
            if (e == null) {
                // Forget the node only once the server confirmed it is gone, so a failed delete keeps being retried.
                boolean wasOurs = held.remove(hold.path(), grant);
                if (ok && wasOurs && hold.alone() && kind == Kind.EXCLUSIVE) {
                    solo.deletedAlone(hold.lockPath(), hold.node(), hold.czxid(), System.nanoTime());
                }
                answer.complete(ok && wasOurs);
            } else {
                answer.completeExceptionally(e);
            }
        });
        return answer;
    }

    /** Deletes the node of a grant this client still holds (client close); forgets it once deleted. */
    public CompletableFuture<Boolean> deleteHeld(Grant grant) {
        ZkGrantState hold = grant.backendState(ZkGrantState.class);
        return deleteNode(hold.path(), hold.sessionId()).whenComplete((ok, e) -> held.remove(hold.path(), grant));
    }

    /** One batch of pipelined {@code exists} checks ({@link HeldChecks}). */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return HeldChecks.lost(session, grants, "lock nodes");
    }

    @Override
    public boolean shared() {
        return kind == Kind.READ;
    }

    @Override
    public boolean supportsHandOff() {
        return kind == Kind.EXCLUSIVE && !fair;
    }

    @Override
    public boolean fair() {
        return fair;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        ZkGrantState hold = from.backendState(ZkGrantState.class);
        CompletableFuture<Grant> result = new CompletableFuture<>();
        long sentAt = request.time().nanoTime();
        ZooKeeper zk = session.zkOrFail(result);
        if (zk == null) {
            return result;
        }
        // Rewriting our own node keeps our place at the head of the queue; the write's zxid is the new token.
        zk.setData(hold.path(), nodeData(request.ownerId(), clientName, zk.getSessionTimeout(), -1), -1, (rc, path, ctx, stat) -> {
            Code code = Code.get(rc);
            if (code == Code.OK && stat.getEphemeralOwner() == hold.sessionId()) {
                ZkGrantState next = new ZkGrantState(hold.lockPath(), hold.node(), hold.czxid(), stat.getMzxid(),
                        hold.sessionId(), false);
                Grant grant = new Grant(request, stat.getMzxid(), sentAt, next);
                held.put(hold.path(), grant);
                result.complete(grant);
            } else if (code == Code.OK || code == Code.NONODE || code == Code.SESSIONEXPIRED) {
                held.remove(hold.path(), from);
                result.complete(null);
            } else {
                result.completeExceptionally(session.unavailable("hand off " + path, null));
            }
        }, null);
        return session.bounded(result, "hand off " + hold.path());
    }

    /**
     * The listing, then the holder node's data and stat (ZooKeeper cannot read a child it has not named). Held since
     * the node's last write; no lease (the session keeps the node); the waiters are the queue's other nodes.
     */
    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        return holderAt(pathOf.apply(name)).thenApply(h -> h == null ? null : h.holder());
    }

    /** A holder's node and what it tells ({@link #holderAt}). */
    public record Holder(ZkAsync.Node node, LockHolder holder) {
    }

    /** The holder of the queue at the full path {@code lockPath} ({@link #holder}), or {@code null}. */
    public CompletableFuture<Holder> holderAt(String lockPath) {
        return ZkAsync.listed(session, lockPath).thenCompose(children -> {
            List<String> queue = children.stream().filter(c -> LockNodes.sequenceNumber(c) >= 0).toList();
            List<String> holders = holders(queue);
            if (holders.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            String path = lockPath + "/" + holders.get(0);
            return ZkAsync.readOrNull(session, path).thenApply(node -> node == null ? null // released since listed
                    : new Holder(node, ZkHolders.holder(node.data(), node.stat(), held.get(path),
                            queue.size() - holders.size())));
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String lockPath = pathOf.apply(name);
        return ZkAsync.listed(session, lockPath).thenApply(children -> holders(children).size() > 0);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        String lockPath = pathOf.apply(name);
        return ZkAsync.listed(session, lockPath).thenCompose(children -> {
            List<String> victims = holders(children);
            if (victims.isEmpty()) {
                return CompletableFuture.completedFuture(false);
            }
            List<CompletableFuture<Boolean>> deletes = victims.stream().map(v -> deleteNode(lockPath + "/" + v, 0))
                    .toList();
            return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]))
                    .thenApply(x -> deletes.stream().anyMatch(CompletableFuture::join));
        });
    }

    /** Who holds the lock of this kind, judged from the children alone. */
    private List<String> holders(List<String> children) {
        List<String> sorted = LockNodes.sorted(children);
        if (kind != Kind.READ) { // the first node, if it is of this kind
            return sorted.isEmpty() || (kind == Kind.WRITE && !LockNodes.isWriter(sorted.get(0))) ? List.of()
                    : sorted.subList(0, 1);
        }
        int readers = 0; // the readers ahead of the first writer
        while (readers < sorted.size() && !LockNodes.isWriter(sorted.get(readers))) {
            readers++;
        }
        return sorted.subList(0, readers);
    }

    /** Deletes a node, retried until the server answers ({@link NodeDeletes}). */
    CompletableFuture<Boolean> deleteNode(String path, long sessionId) {
        return deletes.delete(path, sessionId, null);
    }

    private void sessionLost(long sessionId) {
        for (Grant g : held.grantsOfSession(sessionId)) {
            ZkGrantState hold = g.backendState(ZkGrantState.class);
            if (held.remove(hold.path(), g)) {
                lostSink.accept(g);
            }
        }
    }

    /** Whether {@code node} under {@code lockPath} is held by {@code ownerId} in this client. */
    boolean ownedBy(String lockPath, String node, String ownerId) {
        Grant g = held.get(lockPath + "/" + node);
        return g != null && g.ownerId().equals(ownerId);
    }

    /**
     * A lock node's data, for {@code latchkey inspect}: lines {@code <owner>}, {@code session-timeout-ms=<n>} (how
     * long the node outlives a crashed holder), {@code client=<name>} and, once a queued grant knows it, {@code
     * token=<n>} (other clients cannot derive it from the stat). Readers look lines after the owner up by prefix.
     */
    static byte[] nodeData(String ownerId, String clientName, int sessionTimeoutMs, long token) {
        StringBuilder b = new StringBuilder(ownerId).append('\n').append(SESSION_TIMEOUT).append(sessionTimeoutMs)
                .append('\n').append(CLIENT).append(clientName);
        if (token >= 0) {
            b.append('\n').append(TOKEN).append(token);
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Prefixes of the lines of a lock node's data. */
    public static final String SESSION_TIMEOUT = "session-timeout-ms=", CLIENT = "client=", TOKEN = "token=";
}
