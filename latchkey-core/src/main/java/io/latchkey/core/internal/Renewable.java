package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link Watchdog} renews: a lock's {@link Hold} or a permit-expirable semaphore's {@link PermitHold}.
 * Renewals are batched per {@link #renewer()}: one {@code renew} call per backend operation set per tick.
 */
interface Renewable {

    /** The backend operations whose {@code renew} takes this grant; the batch key. */
    Object renewer();

    Grant grant();

    boolean isHeld();

    /** Local bound of the server's lease: past it, the grant may already be someone else's. */
    long leaseBoundNanos();

    /** A renewal sent at {@code sentAtNanos} was confirmed. */
    void renewedAt(long sentAtNanos);

    /** The state change of a loss; {@code true} if this call made it. */
    boolean beginLost(String reason);

    /** What follows {@link #beginLost} (listeners, logging), after a whole batch turned lost. */
    void finishLost();

    /** Sends one renewal of {@code grants} to {@code renewer} (a {@code RemoteLockOps} or {@code RemoteCountOps}). */
    static CompletableFuture<Set<Grant>> send(Object renewer, Collection<Grant> grants) {
        if (renewer instanceof io.latchkey.core.RemoteLockOps l) {
            return l.renew(grants);
        }
        return ((io.latchkey.core.RemoteCountOps) renewer).renew(grants);
    }
}
