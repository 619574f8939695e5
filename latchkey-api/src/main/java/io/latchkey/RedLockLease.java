package io.latchkey;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * A hold of a {@link RedLock}: part leases on at least a quorum of independent servers.
 *
 * <h2>Validity</h2>
 * A lease acquired with a lease time {@code L} is <em>valid for</em> {@code L − elapsed − drift} from the moment
 * the acquisition started, where {@code elapsed} is the time the acquisition took and
 * {@code drift = L × 0.01 + 2 ms} allows for the servers' clocks running at slightly different rates (the figures
 * of the Redis RedLock description). {@link #validity()} counts that down; when it reaches zero the lease turns
 * invalid and is reported {@linkplain #onLost lost}, even though the parts themselves expire on their servers a
 * little later. Do the protected work only while {@code validity()} comfortably exceeds the time it needs.
 *
 * <h2>Loss</h2>
 * The lease is lost when its validity runs out (fixed leases), or when fewer than a quorum of its parts remain
 * valid (a part's renewal failed, its lease ran out, its server dropped it). Losing a minority of parts is not a
 * loss: the quorum still excludes every other client.
 *
 * <h2>Fencing</h2>
 * {@link #fencingToken()} is the largest of the part tokens. Each server counts independently, so this number is
 * <em>not</em> guaranteed to increase from one RedLock hold to the next (a later hold on a different quorum may
 * see a smaller maximum). Do not use it as a fencing token; if the protected resource needs one, fence with a
 * lock from a single backend that issues strictly increasing tokens (ZooKeeper, etcd, SQL, or one Redis).
 */
public interface RedLockLease extends LockLease {

    /**
     * {@return the time this lease is still guaranteed by the algorithm} For a lease with a lease time, what is left of
     * {@code leaseTime − acquisition time − clock drift}, shrinking as time passes; {@link Duration#ZERO} once it ran
     * out, the lease was released, or it was lost. A watchdog-renewed lease (acquired without a lease time) has no
     * fixed end: it reports {@link ChronoUnit#FOREVER}'s duration while {@link #isValid() valid} and zero after.
     */
    Duration validity();

    /** {@return how many parts this lease holds} At least the quorum when it was acquired. */
    int heldParts();
}
