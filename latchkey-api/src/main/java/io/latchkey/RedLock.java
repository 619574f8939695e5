package io.latchkey;

import java.time.Duration;

/**
 * A lock held on a majority of {@code N} independent servers: the RedLock algorithm, over locks from any
 * clients (usually one lock of the same name on each of {@code N} separate Redis servers). Built by
 * {@link Locks#redLock(DistributedLock...)}.
 *
 * <h2>Acquiring</h2>
 * One attempt asks every part at once, each with a per-node timeout much smaller than the lease (by default a
 * tenth of the lease, between 10 ms and 100 ms; 100 ms for watchdog leases), so that a dead server costs at most
 * that timeout. The attempt succeeds when at least {@code N/2 + 1} parts were taken <em>and</em> the remaining
 * validity {@code leaseTime − elapsed − drift} (with {@code drift = leaseTime × 0.01 + 2 ms}) is still positive.
 * Otherwise every part is released again, including parts whose answer came too late (those asynchronously), and
 * the next attempt starts after a random back-off, until the wait time runs out. If more than {@code N − quorum}
 * parts fail with errors or do not answer in time, no quorum is possible and the acquire throws
 * {@link LockUnavailableException} naming them (rather than waiting).
 *
 * <h2>Interruption and memory effects</h2>
 * The interruptible methods throw {@link InterruptedException} when interrupted while waiting; parts that the
 * interrupted attempt takes are released first (waiting at most about the per-node timeout for answers still on
 * their way; later answers are released when they come). A successful acquire has the memory effects of the
 * acquires of the parts it took, a release those of their releases.
 *
 * <h2>Ownership</h2>
 * Leases ({@link #acquire()}, …) are {@link RedLockLease}s. The thread-owned {@link java.util.concurrent.locks.Lock}
 * methods are built on leases and tracked by this object: they are reentrant for a thread using the same
 * {@code RedLock} instance, and the lease of the first {@code lock} is kept until the matching last
 * {@code unlock}. Use one instance per resource.
 *
 * <h2>Watchdog leases</h2>
 * Without a lease time every part is renewed by its own client's watchdog; the RedLock stays valid while at least
 * a quorum of its parts stays valid, and is lost when fewer remain.
 *
 * <h2>What it does not guarantee</h2>
 * RedLock is a timing-based algorithm. It assumes bounded process pauses, bounded network delays and clocks that
 * advance at about the same rate on every server. It does <b>not</b> protect against:
 * <ul>
 * <li>a process pause (GC, swapping, a stopped VM) longer than the remaining validity: the holder wakes up
 *     believing it holds a lock that has expired and that another client may hold;</li>
 * <li>a server's clock jumping forward (manual change, NTP step): its part expires early and another client may
 *     form a quorum with it;</li>
 * <li>a server restarting without persistence (or with asynchronous persistence) while a lock is held: it forgets
 *     the part, and another client may form a quorum with it. Restart crashed servers only after the longest lease
 *     has passed, or use {@code appendfsync always};</li>
 * <li>replication: each part must be an independent primary; replicas or a Redis Cluster do not count as
 *     separate servers.</li>
 * </ul>
 * Where correctness matters, pass a fencing token from a single strictly ordered backend to the protected
 * resource (see {@link RedLockLease} on why the RedLock's own token is not one). With fewer than three parts
 * the quorum is every part, so the lock tolerates no server failure; three or five parts are the usual choice.
 *
 * <h2>Other methods</h2>
 * {@link #isLocked()} is {@code true} when at least a quorum of parts is locked (unreachable parts count as not
 * locked); {@link #forceUnlock()} force-unlocks every part; {@link #fencingToken()} is the current thread's
 * lease's token, with the caveat above.
 */
public interface RedLock extends DistributedLock {

    /** {@inheritDoc} The lease is a {@link RedLockLease}. */
    @Override
    RedLockLease acquire() throws InterruptedException;

    /** {@inheritDoc} The lease is a {@link RedLockLease}. */
    @Override
    RedLockLease acquire(Duration leaseTime) throws InterruptedException;

    /** {@return how many of the N parts must be taken: {@code N/2 + 1}} */
    int quorum();

    /**
     * {@return the remaining validity of the current thread's hold, or {@link Duration#ZERO} if it holds none}
     * See {@link RedLockLease#validity()}.
     */
    Duration validity();
}
