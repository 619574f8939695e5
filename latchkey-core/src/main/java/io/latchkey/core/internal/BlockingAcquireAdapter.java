package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.concurrent.CompletableFuture;

/**
 * The transitional path for a {@link RemoteLockOps} that waits itself ({@link RemoteLockOps#singleAttempts()} is
 * {@code false}): the waiter's request goes to {@link RemoteLockOps#acquire} once, and the backend's answer (a grant,
 * {@code null} when the wait ran out, or a failure) settles the waiter through {@link NameState#onGrantResult}. The
 * engine keeps only the deadline's backstop, cancellation ({@link io.latchkey.core.AcquireRequest#cancel()}) and the
 * give-back of a grant nobody waits for any more; no re-check, subscription or withdrawal happens here.
 *
 * <p>Which recipes still use it: those whose ops do not answer single attempts yet — the Redis, ZooKeeper, etcd,
 * JDBC and file lock ops as this class is written — and the recipes that block inside the server by nature
 * ({@code pg_advisory_lock}, {@code GET_LOCK}), which keep a thin adapter of their own. Once every backend answers
 * single attempts, delete this class, its one call in {@link NameState#send} and the {@code single} flag's
 * other branches.
 */
final class BlockingAcquireAdapter {

    private BlockingAcquireAdapter() {
    }

    /** Sends {@code w}'s acquire to a backend that waits itself; must be called without holding the lock. */
    static void send(NameState nameState, Waiter w) {
        CompletableFuture<Grant> f;
        try {
            f = nameState.ops.acquire(w.request);
            if (f == null) {
                f = CompletableFuture.failedFuture(new IllegalStateException("backend returned no future"));
            }
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((g, e) -> nameState.onGrantResult(w, g, e, false));
    }
}
