package io.latchkey.core.internal;

import io.latchkey.core.AcquireRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * One pending acquire in a {@link NameState}: of a lock, or of a counted resource. Its {@link #future} completes with
 * what its {@link WaitKind} made of a success (a lock's {@link Hold}, a semaphore's {@code TRUE}, a permit's
 * {@link io.latchkey.core.Grant}, a latch's {@code TRUE}), with {@code null} when the wait ran out or the waiter was
 * cancelled (after anything a late success took was given back), or exceptionally when the backend failed, did not
 * answer in time, or the client closed.
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
        ABANDONED,
        /**
         * Served locally (a semaphore's released permits) while its attempt was out: that attempt's success is given
         * back, then {@link #settled} completes.
         */
        HANDED
    }

    final NameState nameState;
    final String ownerId;
    final boolean threadOwned;
    /** Sent at once, beside the queue: a downgrade (read lock while holding the write lock) must not queue. */
    final boolean bypass;
    final long startNanos;
    final AcquireRequest request;
    /** The permits a semaphore's waiter asks for (1 for every other kind). */
    final int permits;
    /** Whether it waits at all; a single look ({@code tryAcquire()}) does not. */
    final boolean waits;
    final CompletableFuture<Object> future = new CompletableFuture<>();
    /** Made when the waiter is {@link State#HANDED}: completes once its attempt answered and what it took is back. */
    CompletableFuture<Void> settled;
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
    /**
     * The deadline passed while an attempt was out (or before the first one): the name's push count then. An attempt
     * that a push before the deadline overlapped looks once more, so that a change before the deadline is not missed.
     */
    boolean deadlineSeen;
    int deadlineChanges;
    /**
     * A hand-off to this waiter got no answer and it went back to the queue: if it leaves before an attempt of its own
     * answers, what the hand-off may have made is cleaned up. Guarded by the nameState's lock.
     */
    boolean handOffUnanswered;
    /** The permit id of a permit-expirable semaphore's last lease attempt: that attempt's id. */
    volatile String permitId;
    /** The re-check of a busy answer. */
    ScheduledFuture<?> recheck;

    Waiter(NameState nameState, String ownerId, boolean threadOwned, boolean bypass, long startNanos,
           AcquireRequest request, int permits, boolean waits) {
        this.nameState = nameState;
        this.ownerId = ownerId;
        this.threadOwned = threadOwned;
        this.bypass = bypass;
        this.startNanos = startNanos;
        this.request = request;
        this.permits = permits;
        this.waits = waits;
    }

    /** {@link #future}, typed as its kind completes it. */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> result() {
        return (CompletableFuture<T>) (CompletableFuture<?>) future;
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
