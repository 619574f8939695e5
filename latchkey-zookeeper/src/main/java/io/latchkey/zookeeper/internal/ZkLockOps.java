package io.latchkey.zookeeper.internal;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * lock's path, the first in sequence order holds. It answers single attempts ({@link ZkLockAttempt}): the first
 * attempt of a waiter creates its node and answers granted, or queued with the node as its entry; later attempts
 * list the queue again; {@link #withdraw} deletes the node. The engine does all the waiting, woken by a watch on the
 * one node each waiter must outlast ({@link LockWakeUps}): its deletion (a release, a lease that ran out, an expired
 * session, a forced unlock, a withdrawn waiter) or its hand-off wakes only the client whose waiter is next, never a
 * herd.
 *
 * <p>{@link Kind#EXCLUSIVE} is the plain and fair lock (Curator's {@code lock-} children): one queue, so both
 * exclude each other; the plain lock may hand a held node to another owner of this client, the
 * {@linkplain #fair() fair} one never does, and each of its waiting owners has a node of its own from the moment it
 * starts waiting. {@link Kind#WRITE} and
 * {@link Kind#READ} share one path per name and one {@link HeldNodes} table, like Curator's read-write lock
 * ({@code __WRIT__} / {@code __READ__} children): a reader passes writers that belong to its own owner, which is
 * what makes a write → read downgrade possible.
 *
 * <h2>Round trips</h2>
 * An uncontended acquire sends the create and the getChildren back to back; ZooKeeper serves one session's
 * requests in order, so the listing already contains our node and the pair costs one round trip. Release is one
 * delete. Curator's mutex spends three (create, then getChildren, then delete). A lone re-acquire right after our
 * own release skips the listing altogether ({@link SoloHistory}): two requests per cycle instead of three.
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
     * @param pathOf maps a lock name to its znode path
     * @param fair a fair lock ({@link RemoteLockOps#fair()}: no local hand-off, every waiting owner its own node);
     *        only with {@link Kind#EXCLUSIVE}
     * @param held the table of our held nodes, shared by the read and write halves of one read-write lock family
     * @param lostSink told about every grant whose node vanished with an expired session
     * @param clientName the client's name, recorded in each lock node's data
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
     * Deletes the waiter's node, retried until the server answers ({@link NodeDeletes}). Without an entry there is
     * nothing to do: an attempt that fails deletes what it created itself, including a node whose create answer
     * was lost (found by its protection id once the queue can be listed), so no failed waiter keeps a node.
     */
    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        ZkQueueEntry q = entry == null ? null : ZkQueueEntry.parse(entry);
        if (q == null) {
            return CompletableFuture.completedFuture(null);
        }
        return deleteNode(pathOf.apply(request.name()) + "/" + q.node(), q.sessionId()).thenApply(ok -> null);
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
     * ZooKeeper has no per-node expiry for ephemerals: the holder's client deletes its node when the engine finds the
     * fixed lease over (a crashed holder's node goes with its session instead). Only this grant's node, and only
     * while this client still counts it as held: the delete is retried until the server answers ({@link NodeDeletes}).
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
        // Only a delete that has to wait for the connection gets a timer (none on the hot path): the caller hears
        // of the outage within the operation timeout while the retries go on in the background.
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
        // Not bounded here: the engine bounds every remote call it waits for by the operation timeout, and a
        // timer per release would cost a scheduler wake-up on the hot path.
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
     * Who holds it: the listing, then the holder node's data and stat (two requests: ZooKeeper cannot read a child it
     * has not named). Held since the node's last write (its creation, or the hand-off that rewrote it); no lease (the
     * holder's session keeps the node); the waiters are the other nodes of the queue.
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
            List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
            for (String v : victims) {
                deletes.add(deleteNode(lockPath + "/" + v, 0));
            }
            return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]))
                    .thenApply(x -> deletes.stream().anyMatch(CompletableFuture::join));
        });
    }

    /** Who holds the lock of this kind, judged from the children alone. */
    private List<String> holders(List<String> children) {
        List<String> sorted = LockNodes.sorted(children);
        List<String> result = new ArrayList<>();
        if (sorted.isEmpty()) {
            return result;
        }
        switch (kind) {
            case EXCLUSIVE -> result.add(sorted.get(0));
            case WRITE -> {
                if (LockNodes.isWriter(sorted.get(0))) {
                    result.add(sorted.get(0));
                }
            }
            case READ -> {
                for (String c : sorted) {
                    if (LockNodes.isWriter(c)) {
                        break;
                    }
                    result.add(c);
                }
            }
            default -> throw new IllegalStateException(kind.name());
        }
        return result;
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
     * A lock node's data, for {@code latchkey inspect}: the owner id, the session timeout this client negotiated
     * (how long the node outlives a crashed holder) and, once a queued grant knows it, the holder's fencing token
     * (which another client cannot derive from the node's stat), and the holding client's name. Lines
     * {@code <owner>}, {@code session-timeout-ms=<n>}, {@code client=<name>}, {@code token=<n>}; readers take the
     * first line as the owner and look the others up by prefix (a client name has no line breaks).
     */
    static byte[] nodeData(String ownerId, String clientName, int sessionTimeoutMs, long token) {
        StringBuilder b = new StringBuilder(ownerId).append('\n').append(SESSION_TIMEOUT).append(sessionTimeoutMs)
                .append('\n').append(CLIENT).append(clientName);
        if (token >= 0) {
            b.append('\n').append(TOKEN).append(token);
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Prefix of the session timeout line in a lock node's data. */
    public static final String SESSION_TIMEOUT = "session-timeout-ms=";
    /** Prefix of the client name line in a lock node's data. */
    public static final String CLIENT = "client=";
    /** Prefix of the fencing token line in a lock node's data. */
    public static final String TOKEN = "token=";
}
