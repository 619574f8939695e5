package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.concurrent.CompletableFuture;

/**
 * The thin adapter for a {@link RemoteLockOps} that waits itself ({@link RemoteLockOps#singleAttempts()} is
 * {@code false}): the waiter's request goes to {@link RemoteLockOps#acquire} once, and the backend's answer (a grant,
 * {@code null} when the wait ran out, or a failure) settles the waiter through {@link WaitAnswers#settle}. The
 * engine keeps only the deadline's backstop, cancellation ({@link io.latchkey.core.AcquireRequest#cancel()}) and the
 * give-back of a grant nobody waits for any more; no re-check, subscription or withdrawal happens here.
 *
 * <p>Which recipes use it: only those that block inside the server by nature — the SQL advisory locks
 * ({@code pg_advisory_lock}, MariaDB's {@code GET_LOCK}), whose release nobody announces, so single attempts would have
 * to poll the server to learn of it. Every other lock ops of every backend answers single attempts and never comes
 * here.
 */
final class BlockingAcquireAdapter {

    private BlockingAcquireAdapter() {
    }

    /** Sends {@code w}'s acquire to a backend that waits itself; must be called without holding the lock. */
    static void send(NameState nameState, Waiter<?> w) {
        CompletableFuture<Grant> f = LockEngine.callRemote(() -> nameState.ops.acquire(w.request));
        f.whenComplete((g, e) -> {
            if (e != null) {
                nameState.kind.cleanUp(nameState, w); // it may have taken the lock before its answer was lost
            }
            WaitAnswers.settle(nameState, w, g, e, false);
        });
    }
}
