package io.latchkey.core.internal;

import io.latchkey.core.AcquireRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * One pending acquire in a {@link NameState}. Its {@link #future} completes with the {@link Hold} once granted, with
 * {@code null} when the wait ran out or the waiter was cancelled (after any late grant was released), or
 * exceptionally when the backend failed or the client closed.
 */
final class Waiter {

    enum State {
        /** Waiting in the nameState's local queue; no remote request. */
        QUEUED,
        /** Its request is at the backend (acquire or hand-off). */
        INFLIGHT,
        GRANTED,
        TIMED_OUT,
        FAILED,
        /** Abandoned by its caller; a grant that still arrives is released. */
        CANCELLED,
        /** Failed locally because the backend did not answer in time; a late grant is released. */
        ABANDONED
    }

    final NameState nameState;
    final String ownerId;
    final boolean threadOwned;
    /** Sent at once, beside the queue: a downgrade (read lock while holding the write lock) must not queue. */
    final boolean bypass;
    final long startNanos;
    final AcquireRequest request;
    final CompletableFuture<Hold> future = new CompletableFuture<>();
    /** Guarded by the nameState's lock. */
    State state = State.QUEUED;
    volatile ScheduledFuture<?> timer;
    // single attempts (RemoteLockOps#singleAttempts), guarded by the nameState's lock
    /** An attempt for this waiter is at the backend. */
    boolean attempting;
    /** An attempt for this waiter has answered: before that, its deadline waits for the first answer. */
    boolean looked;
    /** The waiter's place in the server's queue, from its last queued answer. */
    String entry;
    /** The re-check of a busy answer. */
    ScheduledFuture<?> recheck;

    Waiter(NameState nameState, String ownerId, boolean threadOwned, boolean bypass, long startNanos, AcquireRequest request) {
        this.nameState = nameState;
        this.ownerId = ownerId;
        this.threadOwned = threadOwned;
        this.bypass = bypass;
        this.startNanos = startNanos;
        this.request = request;
    }

    boolean hasDeadline() {
        return request.deadlineNanos() != AcquireRequest.NO_DEADLINE;
    }

    void cancelTimer() {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        ScheduledFuture<?> r = recheck;
        if (r != null) {
            r.cancel(false);
        }
    }

    @Override
    public String toString() {
        return "Waiter{owner=" + ownerId + ", name='" + nameState.name + "'}";
    }
}
