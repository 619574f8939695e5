package io.latchkey;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;

/**
 * Locks made of other locks, from any clients and backends: {@link #multiLock multi-locks} (all of them) and
 * {@link #redLock RedLocks} (a majority of independent servers).
 *
 * <p>Both are built only on the public {@link DistributedLock} and {@link LockLease} contract, so they work over
 * every backend and over each other (a multi-lock of RedLocks, for instance). They keep no thread and no
 * connection of their own: closing the parts' clients is what ends them.
 */
public final class Locks {

    private Locks() {
    }

    /**
     * A lock that holds all of {@code locks} or none of them, for work that needs several resources at once
     * (say, both accounts of a transfer).
     *
     * <h4>Order and deadlock</h4>
     * Parts are taken one after the other in ascending {@linkplain DistributedLock#name() name} order, whatever
     * order they were passed in. A multi-lock waits for a part only while every part it already holds has a
     * strictly smaller name; for a part whose name equals one it holds (the same name on another backend) it
     * first gives everything back and waits holding nothing. Two multi-locks over overlapping sets therefore never
     * deadlock each other, in one JVM or across many.
     *
     * <h4>All or nothing</h4>
     * If a part cannot be taken within the wait time, if taking it fails ({@link LockUnavailableException}), or if
     * the caller is interrupted, every part taken so far is released before the method returns or throws.
     *
     * <h4>Interruption and memory effects</h4>
     * The interruptible methods throw {@link InterruptedException} when interrupted while waiting for a part, after
     * releasing the parts already taken. A successful acquire has, for every part, the memory effects of that part's
     * acquire; a release those of every part's release.
     *
     * <h4>Ownership</h4>
     * The thread-owned methods use the parts' own thread-owned methods, so a multi-lock is reentrant exactly when
     * its parts are, and {@link DistributedLock#getHoldCount()} is the smallest of the parts' hold counts. Leases
     * hold one lease per part: the lease is valid while every part is, and is lost (its {@code onLost} listeners
     * run) as soon as one part is lost. {@code unlock()} / {@code release()} release every part, even when one
     * fails, and then throw {@link LockLostException} if any part had been lost.
     *
     * <h4>Fencing</h4>
     * The fencing token is the token of the first part in name order: strictly increasing across holds of any
     * multi-lock whose first part is that lock. Fence each resource with its own part's token where it matters
     * (the parts' {@link DistributedLock#fencingToken()} work as usual for thread-owned holds).
     *
     * <h4>Other methods</h4>
     * {@code name()} is {@code multiLock[a, b, …]}; {@code isLocked()} is {@code true} when any part is locked;
     * {@code forceUnlock()} force-unlocks every part; {@code newCondition()} is not supported.
     *
     * @param locks the parts, at least one, each at most once
     * @return the multi-lock
     * @throws IllegalArgumentException if {@code locks} is empty or has the same lock object twice
     * @throws NullPointerException if {@code locks} or an element is {@code null}
     */
    public static DistributedLock multiLock(DistributedLock... locks) {
        Objects.requireNonNull(locks, "locks");
        return multiLock(Arrays.asList(locks));
    }

    /**
     * {@link #multiLock(DistributedLock...)} over a collection.
     *
     * @param locks the parts, at least one, each at most once
     * @return the multi-lock
     */
    public static DistributedLock multiLock(Collection<? extends DistributedLock> locks) {
        return new MultiLock(CombinatorArgs.parts("multiLock", locks));
    }

    /**
     * A lock held on a majority ({@code N/2 + 1}) of {@code locks}, each on its own independent server: the
     * RedLock algorithm. Read {@link RedLock} for how it acquires, what validity it reports and, above all, what it
     * does not guarantee. The per-node timeout defaults to a tenth of the lease, between 10 ms and 100 ms.
     *
     * <p>With one or two parts the quorum is every part (no server may fail); use three or five.
     *
     * @param locks the parts, one per independent server, at least one, each at most once
     * @return the RedLock
     * @throws IllegalArgumentException if {@code locks} is empty or has the same lock object twice
     * @throws NullPointerException if {@code locks} or an element is {@code null}
     */
    public static RedLock redLock(DistributedLock... locks) {
        Objects.requireNonNull(locks, "locks");
        return redLock(Arrays.asList(locks));
    }

    /**
     * {@link #redLock(DistributedLock...)} over a collection.
     *
     * @param locks the parts, one per independent server, at least one, each at most once
     * @return the RedLock
     */
    public static RedLock redLock(Collection<? extends DistributedLock> locks) {
        return new QuorumLock(CombinatorArgs.parts("redLock", locks), null);
    }

    /**
     * {@link #redLock(DistributedLock...)} with an explicit per-node timeout: how long one attempt waits for the
     * servers' answers. It must be much smaller than the leases you acquire with (the time it takes is subtracted
     * from their validity) and larger than a round trip to the slowest healthy server.
     *
     * @param nodeTimeout how long one attempt waits for the parts' answers
     * @param locks the parts, one per independent server, at least one, each at most once
     * @return the RedLock
     * @throws IllegalArgumentException if {@code nodeTimeout} is not positive, or as {@link #redLock(Collection)}
     */
    public static RedLock redLock(Duration nodeTimeout, Collection<? extends DistributedLock> locks) {
        Objects.requireNonNull(nodeTimeout, "nodeTimeout");
        if (nodeTimeout.isNegative() || nodeTimeout.isZero()) {
            throw new IllegalArgumentException(String.format("nodeTimeout must be positive but was %s", nodeTimeout));
        }
        return new QuorumLock(CombinatorArgs.parts("redLock", locks), nodeTimeout);
    }
}
