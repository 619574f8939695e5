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
 * our create gets number 1, the number we expected). So the shortcut is only taken right after our own delete
 * ({@link #WINDOW_NANOS}) and only once the path's counter has reached {@link #MIN_SEQUENCE}: that many creates in a
 * re-created path cannot fit in the window (a ZooKeeper ensemble commits a few tens of thousands of writes a second
 * at best; the window allows a few thousand). Anything unexpected falls back to listing.
 */
final class SoloHistory {

    static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The smallest sequence number the shortcut trusts (see the class comment). */
    static final long MIN_SEQUENCE = 20_000;
    private static final int MAX_ENTRIES = 10_000;

    private record Entry(long sequence, long deletedAtNanos) { }

    private final Map<String, Entry> byPath = new ConcurrentHashMap<>();

    /** Our node {@code node} was alone and has just been deleted. */
    void deletedAlone(String lockPath, String node, long nowNanos) {
        long seq = LockNodes.sequenceNumber(node);
        if (seq < 0) {
            return;
        }
        if (byPath.size() >= MAX_ENTRIES) {
            byPath.clear();
        }
        byPath.put(lockPath, new Entry(seq, nowNanos));
    }

    /** The sequence number that proves we are alone, or -1 if the shortcut does not apply now. Consumes the entry. */
    long expectedNext(String lockPath, long nowNanos) {
        Entry e = byPath.remove(lockPath);
        if (e == null || nowNanos - e.deletedAtNanos() > WINDOW_NANOS || e.sequence() + 1 < MIN_SEQUENCE) {
            return -1;
        }
        return e.sequence() + 1;
    }
}
