package io.latchkey.core.internal;

import io.latchkey.LockLease;

/** What the engine knows about a lease's server-side lifetime, for primitives built on leases (elections). */
public final class LeaseBounds {

    private LeaseBounds() {
    }

    /**
     * Whether {@code lease}'s server-side lease is known to last past now: its last confirmed renewal (or its
     * acquire) was sent less than one lease time ago. {@code false} right after this process was paused for longer
     * than the lease, until the watchdog's next renewal confirms the hold (or finds it lost). {@code true} for
     * leases the engine did not issue.
     */
    public static boolean confirmed(LockLease lease) {
        return !(lease instanceof Hold hold) || hold.withinLocalBound(Long.MIN_VALUE);
    }

    /**
     * Like {@link #confirmed(LockLease)}, also counting {@code grantedAtNanos} ({@link
     * io.latchkey.core.TimeSource#nanoTime()}), the moment the grant arrived, as a confirmation: some backends date
     * a grant from the start of a long wait (a ZooKeeper queue node is created when the wait begins), which would
     * otherwise make a lease that was just granted after a long wait look unconfirmed until the first renewal.
     */
    public static boolean confirmed(LockLease lease, long grantedAtNanos) {
        return !(lease instanceof Hold hold) || hold.withinLocalBound(grantedAtNanos);
    }
}
