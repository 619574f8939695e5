package io.latchkey.core.internal;

import io.latchkey.LockLease;
import java.util.concurrent.CompletableFuture;

/** A {@link LockLease}: the public face of one lease-owned {@link Hold}. */
final class EngineLease implements LockLease {

    private final Hold hold;

    EngineLease(Hold hold) {
        this.hold = hold;
    }

    @Override
    public String lockName() {
        return hold.name();
    }

    @Override
    public long fencingToken() {
        return hold.grant.fencingToken();
    }

    @Override
    public boolean isValid() {
        return hold.isHeld() && hold.nameState.engine.isCertain(hold.grant);
    }

    /**
     * Whether the server's lease is known to run past now: the last confirmed renewal (or the acquire) was sent
     * — or the grant arrived at {@code grantedAtNanos}, unless that is {@link Long#MIN_VALUE} — less than one lease
     * time ago. False after a long pause of this process until a renewal confirms the hold.
     */
    boolean withinLocalBound(long grantedAtNanos) {
        long now = hold.nameState.engine.time.nanoTime();
        if (now - hold.leaseBoundNanos() < 0) {
            return true;
        }
        return grantedAtNanos != Long.MIN_VALUE && now - grantedAtNanos - hold.grant.leaseMillis() * 1_000_000L < 0;
    }

    @Override
    public void onLost(Runnable listener) {
        hold.onLost(listener);
    }

    @Override
    public void removeOnLost(Runnable listener) {
        hold.removeOnLost(listener);
    }

    @Override
    public void release() {
        hold.nameState.engine.awaitRemote(releaseAsync(), "release", hold.name());
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return hold.nameState.release(hold);
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "LockLease{name='" + hold.name() + "', token=" + hold.grant.fencingToken() + ", state="
                + hold.state() + "}";
    }
}
