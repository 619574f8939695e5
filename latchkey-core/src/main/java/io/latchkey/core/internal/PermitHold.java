package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watchdog permit of a permit-expirable semaphore that this client took: renewed by the client's one
 * {@link Watchdog} in the same ticks as lock holds, batched per {@link RemoteCountOps}. It ends when it is released
 * or given a fixed lease ({@code updateLease}), or when the watchdog finds it gone or cannot renew it in time:
 * then it is logged and dropped (the permit API has no loss listener; the holder's {@code release} answers
 * {@code false}).
 */
final class PermitHold implements Renewable {
    private static final Logger log = LoggerFactory.getLogger(PermitHold.class);

    /** A permit by semaphore and id: ids are unique per client, but a caller may pass any string. */
    record Key(RemoteCountOps ops, String name, String permitId) {
    }

    final LockEngine engine;
    final Key key;
    final Grant grant;
    private final AtomicBoolean held = new AtomicBoolean(true);
    private volatile long renewedAtNanos;
    private volatile String lostReason;

    PermitHold(LockEngine engine, RemoteCountOps ops, Grant grant) {
        this.engine = engine;
        this.key = new Key(ops, grant.name(), grant.ownerId());
        this.grant = grant;
        this.renewedAtNanos = grant.requestedAtNanos();
    }

    @Override
    public Renewer renewer() {
        return new Renewer.Permits(key.ops());
    }

    @Override
    public Grant grant() {
        return grant;
    }

    @Override
    public boolean isHeld() {
        return held.get();
    }

    @Override
    public long leaseBoundNanos() {
        return renewedAtNanos + grant.leaseMillis() * 1_000_000L;
    }

    @Override
    public void renewedAt(long sentAtNanos) {
        renewedAtNanos = sentAtNanos;
    }

    /** Stops renewing it (released, given a fixed lease, client closed); {@code true} if it was still held. */
    boolean end() {
        if (!held.compareAndSet(true, false)) {
            return false;
        }
        engine.forgetPermit(this);
        return true;
    }

    @Override
    public boolean beginLost(String reason) {
        if (!held.compareAndSet(true, false)) {
            return false;
        }
        lostReason = reason;
        return true;
    }

    @Override
    public void finishLost() {
        engine.forgetPermit(this);
        log.warn("permit {} of semaphore '{}' was lost: {}", grant.ownerId(), grant.name(), lostReason);
        engine.events.lost(grant.name(), lostReason);
    }

    /**
     * From the grant, not the identity: sets of holds then iterate in the same order in every run of a deterministic
     * simulation. Equality stays identity.
     */
    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public boolean equals(Object o) {
        return o == this;
    }
}
