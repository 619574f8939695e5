package io.latchkey.zookeeper.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Lets an uncontended re-acquire skip the listing. ZooKeeper numbers a parent's sequential children with a counter
 * that only child <em>creates</em> advance. If, when we were granted a lock, our node was the lock path's only
 * child, and the node we create after deleting it carries the very next number, then no one else created a child
 * in between: ours is the only child again and we hold the lock after one request instead of two.
 *
 * <p>The one thing that could fool the counter is the lock path being reaped as an empty container (the server
 * deletes free locks' paths, at any moment once they are empty) and re-created by others with exactly as many creates
 * as our next number while one of them holds: for a path whose counter is small that takes one or two creates (our
 * first node was number 0: the reaper deletes the path, another client creates it again and holds with number 0,
 * our create gets number 1, the number we expected). Two proofs rule that out, either is enough:
 *
 * <ul>
 *   <li><b>the zxids:</b> a reap and a re-creation are two transactions after our delete, which is itself one after
 *       our last node's create. If our new node's czxid is at most {@link #MAX_ZXID_GAP} past the last node's, at
 *       most our delete and one other transaction ran in between (zxids count transactions one by one within a
 *       leader's epoch; a new epoch jumps by 2<sup>32</sup>): the path is the one we left. This holds whenever the
 *       server is otherwise quiet, such as one thread cycling on one lock;</li>
 *   <li><b>the counter and the clock:</b> right after our own delete ({@link #WINDOW_NANOS}) and once the path's
 *       counter has reached {@link #MIN_SEQUENCE}: that many creates in a re-created path cannot fit in the window
 *       (a ZooKeeper ensemble commits a few tens of thousands of writes a second at best; the window allows a few
 *       thousand).</li>
 * </ul>
 *
 * The zxid proof is only known once the create answers, so the listing is left out in advance only while recent
 * creates passed it ({@link #gapsSmall}); anything unexpected falls back to listing.
 */
final class SoloHistory {

    static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The smallest sequence number the counter-and-clock proof trusts (see the class comment). */
    static final long MIN_SEQUENCE = 20_000;
    /** The largest czxid step from our last node to the new one that the zxid proof trusts. */
    static final long MAX_ZXID_GAP = 3;
    private static final int MAX_ENTRIES = 10_000;

    /** Our last node on a lock path: its sequence number and czxid, and when its delete was confirmed. */
    record Previous(long sequence, long czxid, long deletedAtNanos) {

        /** Whether a node created with {@code sequence} and {@code czxid} is alone on the path we left. */
        boolean provesAlone(long newSequence, long newCzxid) {
            return newSequence == sequence + 1 && (sequence + 1 >= MIN_SEQUENCE || gapSmall(newCzxid));
        }

        boolean gapSmall(long newCzxid) {
            return newCzxid > czxid && newCzxid - czxid <= MAX_ZXID_GAP;
        }
    }

    private final Map<String, Previous> byPath = new ConcurrentHashMap<>();
    /** Whether the last new node seen after one of ours passed the zxid proof: a hint, never a proof. */
    private volatile boolean gapsSmall = true;

    /** Our node {@code node}, created at {@code czxid}, was alone and has just been deleted. */
    void deletedAlone(String lockPath, String node, long czxid, long nowNanos) {
        long seq = LockNodes.sequenceNumber(node);
        if (seq < 0) {
            return;
        }
        if (byPath.size() >= MAX_ENTRIES) {
            byPath.clear();
        }
        byPath.put(lockPath, new Previous(seq, czxid, nowNanos));
    }

    /** Our last node on {@code lockPath} if its delete is recent enough for a proof, or null. Consumes the entry. */
    Previous previous(String lockPath, long nowNanos) {
        Previous p = byPath.remove(lockPath);
        return p == null || nowNanos - p.deletedAtNanos() > WINDOW_NANOS ? null : p;
    }

    /** Whether to leave the listing out after {@code previous}: a proof is likely to hold once the create answers. */
    boolean worthTrying(Previous previous) {
        return previous != null && (previous.sequence() + 1 >= MIN_SEQUENCE || gapsSmall);
    }

    /** Records whether the node created after {@code previous} passed the zxid proof. */
    void created(Previous previous, long newCzxid) {
        boolean small = previous.gapSmall(newCzxid);
        if (small != gapsSmall) {
            gapsSmall = small;
        }
    }
}
