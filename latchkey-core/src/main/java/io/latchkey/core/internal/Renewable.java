package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link Watchdog} renews: a lock's {@link Hold} or a permit-expirable semaphore's {@link PermitHold}.
 * Renewals are batched per {@link #renewer()}: one {@code renew} call per backend operation set per tick.
 */
interface Renewable {

    /** The backend operations whose {@code renew} takes this grant; the batch key. */
    Renewer renewer();

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

    /**
     * The batch key of the watchdog's renewals, equal for the grants of one backend operation set: a lock's
     * {@code RemoteLockOps} or a permit-expirable semaphore's {@code RemoteCountOps}.
     */
    sealed interface Renewer {

        /** Sends one renewal of {@code grants}; the future holds those the backend no longer has. */
        CompletableFuture<Set<Grant>> renew(Collection<Grant> grants);

        /** The renewals of a lock's grants. */
        record Locks(RemoteLockOps ops) implements Renewer {
            @Override
            public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
                return ops.renew(grants);
            }
        }

        /** The renewals of a permit-expirable semaphore's permits. */
        record Permits(RemoteCountOps ops) implements Renewer {
            @Override
            public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
                return ops.renew(grants);
            }
        }
    }
}
