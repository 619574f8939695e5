package io.latchkey.zookeeper.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Lets an uncontended re-acquire skip the listing. ZooKeeper numbers a parent's sequential children with a counter
 * that only child <em>creates</em> advance. If our node was the lock path's only child when granted, and the node we
 * create after deleting it carries the very next number, no one else created a child in between: we hold after one
 * request instead of two.
 *
 * <p>What could fool the counter is the path being reaped as an empty container and re-created by others, whose
 * creates bring the new counter to our number while one of them holds. Either of two proofs rules it out:
 * <b>zxids</b> — they count transactions one by one within an epoch (a new one jumps by 2<sup>32</sup>); after our
 * delete a reap, a re-creation and one create per number up to ours (the first may share the re-creation's
 * {@code multi}) are each a transaction, so a new czxid at most {@code s + }{@link #MAX_ZXID_GAP} past our last
 * node's (number {@code s}) leaves no room for them. Latchkey's and Curator's locks never write a lock path in a
 * {@code multi}; only a tool creating several of its children in one could defeat this. It holds on a quiet server,
 * and on a busy one once the name was taken more times than the server runs transactions during one of its cycles.
 * <b>Counter and clock</b> — right after our delete ({@link #WINDOW_NANOS}) with a counter of at least
 * {@link #MIN_SEQUENCE}: that many creates in a re-created path cannot fit in the window. The zxid proof is known
 * only once the create answers, so the listing is left out in advance only while recent creates passed it; anything
 * unexpected falls back to listing.
 */
final class SoloHistory {

    static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The smallest sequence number the counter-and-clock proof trusts (see the class comment). */
    static final long MIN_SEQUENCE = 20_000;
    /** The czxid step the zxid proof trusts beyond our last node's number: delete, reap, re-creation. */
    static final long MAX_ZXID_GAP = 3;
    private static final int MAX_ENTRIES = 10_000;

    /** Our last node on a lock path, when its delete was confirmed, and whether within the window of the attempt. */
    record Previous(long sequence, long czxid, long deletedAtNanos, boolean recent) {

        /** Whether a node created with {@code sequence} and {@code czxid} is alone on the path we left. */
        boolean provesAlone(long newSequence, long newCzxid) {
            return newSequence == sequence + 1 && (recent && sequence + 1 >= MIN_SEQUENCE || gapSmall(newCzxid));
        }

        boolean gapSmall(long newCzxid) {
            return newCzxid > czxid && newCzxid - czxid <= MAX_ZXID_GAP + sequence;
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
        byPath.put(lockPath, new Previous(seq, czxid, nowNanos, true));
    }

    /** Our last node on {@code lockPath}, or null. Consumes the entry. */
    Previous previous(String lockPath, long nowNanos) {
        Previous p = byPath.remove(lockPath);
        return p == null ? null : new Previous(p.sequence(), p.czxid(), p.deletedAtNanos(),
                nowNanos - p.deletedAtNanos() <= WINDOW_NANOS);
    }

    /** Whether to leave the listing out after {@code previous}: a proof is likely to hold once the create answers. */
    boolean worthTrying(Previous previous) {
        return previous != null && (previous.recent() && previous.sequence() + 1 >= MIN_SEQUENCE || gapsSmall);
    }

    /** Records whether the node created after {@code previous} passed the zxid proof. */
    void created(Previous previous, long newCzxid) {
        gapsSmall = previous.gapSmall(newCzxid);
    }
}
