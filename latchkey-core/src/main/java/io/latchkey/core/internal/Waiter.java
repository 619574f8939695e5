package io.latchkey.core.internal;

import io.latchkey.core.AcquireRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * One pending acquire in a {@link NameState}: of a lock, or of a counted resource. Its {@link #future} completes with
 * what its {@link WaitKind} made of a success ({@code R}: a lock's {@link Hold}, a semaphore's or a latch's
 * {@code TRUE}, a permit's {@link io.latchkey.core.Grant}), with {@code null} when the wait ran out or the waiter was
 * cancelled (after anything a late success took was given back), or exceptionally when the backend failed, did not
 * answer in time, or the client closed.
 *
 * <p>Its state moves only along {@link State}'s allowed transitions ({@link #moveTo}), and every field below is
 * written only by its own methods, under its name state's lock unless said otherwise.
 */
final class Waiter<R> {

    /** A waiter's states; the allowed transitions are written once, in {@link #next}. */
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
        /** Failed locally because the backend did not answer in time (or the client closed); a late grant is released. */
        ABANDONED,
        /**
         * Served locally (a semaphore's released permits) while its attempt was out: that attempt's success is given
         * back, then {@link #settled} completes.
         */
        HANDED;

        /** The states this one may move to, as bits by ordinal. */
        private int next;

        static {
            // queued: sent, served by a hand-off or a latch's look, or ended locally
            QUEUED.allow(INFLIGHT, GRANTED, TIMED_OUT, FAILED, CANCELLED, ABANDONED);
            // at the backend: answered, ended, served locally while its attempt is out, or back to the queue after a
            // hand-off that did not take
            INFLIGHT.allow(QUEUED, GRANTED, TIMED_OUT, FAILED, CANCELLED, ABANDONED, HANDED);
            // every other state is final: a late answer is given back without a move
        }

        private void allow(State... to) {
            for (State s : to) {
                next |= 1 << s.ordinal();
            }
        }

        boolean canMoveTo(State to) {
            return (next & 1 << to.ordinal()) != 0;
        }

        /** Whether the waiter still waits: queued, or at the backend. */
        boolean waiting() {
            return this == QUEUED || this == INFLIGHT;
        }
    }

    /** Who owns what the waiter gets, and where it waits. */
    enum Ownership {
        /** The calling thread (reentrant). */
        THREAD,
        /** The calling thread, sent at once beside the queue: a downgrade (read lock while holding the write lock). */
        THREAD_DOWNGRADE,
        /** A lease, a semaphore's permits or a latch's look: nobody re-enters it. */
        LEASE;

        boolean threadOwned() {
            return this != LEASE;
        }
    }

    final NameState nameState;
    final WaitKind<R> kind;
    final String ownerId;
    final Ownership ownership;
    final long startNanos;
    final AcquireRequest request;
    /** The permits a semaphore's waiter asks for (1 for every other kind). */
    final int permits;
    /** Whether it waits at all; a single look ({@code tryAcquire()}) does not. */
    final boolean waits;
    final CompletableFuture<R> future = new CompletableFuture<>();

    private State state = State.QUEUED;
    /** Made when the waiter is {@link State#HANDED}: completes once its attempt answered and what it took is back. */
    private CompletableFuture<Void> settled;
    /** The deadline timer, or the backstop after it. Written by the thread that arms it. */
    private volatile ScheduledFuture<?> timer;
    /** The re-check of a busy answer. */
    private ScheduledFuture<?> recheck;
    /** An attempt (or a hand-off) for this waiter is at the backend. */
    private boolean attempting;
    /** An attempt for this waiter has answered: before that, its deadline waits for the first answer. */
    private boolean looked;
    /** The waiter's place in the server's queue, from its last queued answer. */
    private String entry;
    /**
     * The deadline passed while an attempt was out (or before the first one): the name's push count then. An attempt
     * that a push before the deadline overlapped looks once more, so that a change before the deadline is not missed.
     */
    private boolean deadlineSeen;
    private int deadlineChanges;
    /**
     * A hand-off to this waiter got no answer and it went back to the queue: if it leaves before an attempt of its own
     * answers, what the hand-off may have made is cleaned up.
     */
    private boolean handOffUnanswered;
    /** The permit id of a permit-expirable semaphore's last lease attempt: that attempt's id. */
    private volatile String permitId;

    Waiter(NameState nameState, WaitKind<R> kind, String ownerId, Ownership ownership, long startNanos,
           AcquireRequest request, int permits, boolean waits) {
        this.nameState = nameState;
        this.kind = kind;
        this.ownerId = ownerId;
        this.ownership = ownership;
        this.startNanos = startNanos;
        this.request = request;
        this.permits = permits;
        this.waits = waits;
    }

    // ---------------------------------------------------------------------------------------------- state

    State state() {
        return state;
    }

    /**
     * Under the lock: moves to {@code to}.
     *
     * @throws IllegalStateException if {@link State} does not allow it
     */
    void moveTo(State to) {
        if (!state.canMoveTo(to)) {
            throw new IllegalStateException(String.format("waiter of %s for '%s' cannot move from %s to %s", ownerId,
                    nameState.name, state, to));
        }
        state = to;
    }

    boolean threadOwned() {
        return ownership.threadOwned();
    }

    /** Sent at once, beside the queue: a downgrade must not queue behind this client's own waiting readers. */
    boolean bypass() {
        return ownership == Ownership.THREAD_DOWNGRADE;
    }

    boolean hasDeadline() {
        return request.deadlineNanos() != AcquireRequest.NO_DEADLINE;
    }

    // ---------------------------------------------------------------------------------------------- attempts

    boolean attempting() {
        return attempting;
    }

    boolean looked() {
        return looked;
    }

    String entry() {
        return entry;
    }

    /** Under the lock: an attempt goes out, unless one is out already or the waiter is not at the backend. */
    boolean beginAttempt() {
        if (state != State.INFLIGHT || attempting) {
            return false;
        }
        attempting = true;
        return true;
    }

    /** Under the lock: a hand-off to this queued waiter goes out; it is its attempt (a deadline waits for it). */
    void beginHandOff() {
        moveTo(State.INFLIGHT);
        attempting = true;
    }

    /** Under the lock: the hand-off answered. */
    void handOffAnswered() {
        attempting = false;
    }

    /** Under the lock: back to the head of the queue after a hand-off that did not take (or got no answer). */
    void requeue(Throwable unanswered) {
        moveTo(State.QUEUED);
        handOffUnanswered = unanswered != null;
    }

    /**
     * Under the lock: an attempt answered ({@code failure}: it failed); an answer settles what an unanswered hand-off
     * made, as both are the same request.
     */
    void answered(Throwable failure) {
        looked = true;
        if (failure == null) {
            handOffUnanswered = false;
        }
    }

    /** Under the lock: the attempt answered busy or queued ({@code entry}: its place in the server's queue, if any). */
    void busy(String newEntry) {
        attempting = false;
        if (newEntry != null) {
            entry = newEntry;
        }
    }

    /**
     * Under the lock, after a busy answer to the attempt sent at push count {@code epoch}: whether that was the last
     * look (cancelled, abandoned, or its deadline passed, unless a push came after it was sent and before the
     * deadline: then one more look, within the same bound).
     */
    boolean lastLook(int epoch) {
        return state != State.INFLIGHT || request.isExpired() && !(deadlineSeen && deadlineChanges - epoch > 0);
    }

    /** Under the lock: the deadline passed while an attempt was out; {@code changes} is the name's push count. */
    void deadlinePassed(int changes) {
        deadlineSeen = true;
        deadlineChanges = changes;
    }

    /** Under the lock: its place in the server's queue, which it gives up now. */
    String takeEntry() {
        String e = entry;
        entry = null;
        return e;
    }

    /** Under the lock: whether an unanswered hand-off's result is still to clean up; it is the caller's now. */
    boolean takeHandOffUnanswered() {
        boolean cleanUp = handOffUnanswered;
        handOffUnanswered = false;
        return cleanUp;
    }

    /** Under the lock: served locally while its attempt is out; returns what the release waits for. */
    CompletableFuture<Void> hand() {
        moveTo(State.HANDED);
        settled = new CompletableFuture<>();
        return settled;
    }

    /** What a {@link State#HANDED} waiter's release waits for, or {@code null}. */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /** The lease attempt about to go out leases {@code id}: an unanswered lease is released by it. */
    void leasing(String id) {
        permitId = id;
    }

    String permitId() {
        return permitId;
    }

    // ---------------------------------------------------------------------------------------------- timers

    void armTimer(ScheduledFuture<?> t) {
        timer = t;
    }

    /** Under the lock: the re-check of a busy answer. */
    void armRecheck(ScheduledFuture<?> r) {
        recheck = r;
    }

    void cancelRecheck() {
        ScheduledFuture<?> r = recheck;
        if (r != null) {
            r.cancel(false);
        }
    }

    void cancelTimer() {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        cancelRecheck();
    }

    /**
     * Completes the future with what a counted success gives (a semaphore's hand-off, a latch's look for every waiter);
     * a counted kind keeps no state for it, so this runs outside the lock.
     */
    void serve(io.latchkey.core.Grant taken) {
        future.complete(kind.grantedLocked(nameState, this, taken));
    }

    @Override
    public String toString() {
        return "Waiter{owner=" + ownerId + ", name='" + nameState.name + "', " + state + "}";
    }

    /** For the invariants: the flags {@link NameState#checkInvariants()} checks, as text, or {@code null} if sound. */
    String checkFlags(boolean single) {
        if (state == State.QUEUED && attempting) {
            return this + " is queued with an attempt out";
        }
        if ((state == State.CANCELLED || state == State.HANDED) && single && !attempting) {
            return this + " waits for an answer with no attempt out";
        }
        return null;
    }
}
