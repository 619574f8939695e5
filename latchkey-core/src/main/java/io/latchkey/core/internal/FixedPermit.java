package io.latchkey.core.internal;

/**
 * A leased permit with a fixed lease that this client took ({@code tryLease} without the watchdog, or
 * {@code updateLease}), in the client's one heap of fixed leases ({@link FixedLeaseExpiry}) until it is released, its
 * lease is updated, or its bound passes: then the backend's {@link io.latchkey.core.RemoteCountOps#leaseEnded} ends it
 * at the server. The permit API has no loss listener, so that call is all that happens at the bound.
 */
final class FixedPermit implements FixedLeaseExpiry.Entry {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FixedPermit.class);

    final PermitHold.Key key;
    /** When the lease runs out, on the engine's clock. */
    final long endNanos;
    private final java.util.Map<PermitHold.Key, FixedPermit> tracked;
    /** Position in the heap; written under its lock, read without it only to skip a permit never tracked. */
    private volatile int expiryIndex = -1;

    FixedPermit(PermitHold.Key key, long endNanos, java.util.Map<PermitHold.Key, FixedPermit> tracked) {
        this.key = key;
        this.endNanos = endNanos;
        this.tracked = tracked;
    }

    @Override
    public int expiryIndex() {
        return expiryIndex;
    }

    @Override
    public void expiryIndex(int i) {
        expiryIndex = i;
    }

    /** Ends the permit at the server unless a release or an update of this client took it out of the map first. */
    @Override
    public void leaseRanOut() {
        if (!tracked.remove(key, this)) {
            return;
        }
        try {
            key.ops().leaseEnded(key.name(), key.permitId());
        } catch (RuntimeException e) {
            log.warn("the clean-up at the end of the fixed lease of permit {} of semaphore '{}' failed", key.permitId(),
                    key.name(), e);
        }
    }

    @Override
    public String toString() {
        return "permit " + key.permitId() + " of semaphore '" + key.name() + "'";
    }
}
