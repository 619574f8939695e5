package io.latchkey.core.internal;

import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.core.Grant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One owner's hold of a lock: the backend's grant plus what the engine tracks locally (reentrancy count, renewal
 * base, loss). A thread-owned hold lives as long as its outermost lock/unlock pair; a lease-owned hold is itself the
 * {@link LockLease} the caller gets (no handle object of its own: a held lease costs one object fewer), and only
 * such a hold is ever handed out as one.
 *
 * <p>The state moves HELD → RELEASING → RELEASED, or HELD → LOST (watchdog, fixed lease, close), or
 * RELEASING → LOST (the backend said at release time that we no longer held it). Transitions are CASes so that
 * a release racing the watchdog's loss detection settles exactly once.
 */
final class Hold implements Renewable, LockLease, FixedLeaseExpiry.Entry, NameHolds.UnlockOutcome {
    private static final Logger log = LoggerFactory.getLogger(Hold.class);

    enum State { HELD, RELEASING, RELEASED, LOST }

    final NameState nameState;
    final Grant grant;
    final long acquiredAtNanos;
    private static final State[] STATES = State.values();
    private static final int STATE_MASK = 3;
    private static final int CLEANED_UP = 4;
    private static final int THREAD_OWNED = 8;
    private static final int EXPIRY_SHIFT = 4;
    /** The largest {@link #expiryIndex} the bits hold: this many fixed-lease holds per client at most. */
    static final int MAX_EXPIRY_INDEX = (-1 >>> EXPIRY_SHIFT) - 1;
    /**
     * Four fields in one int, changed by CAS through {@link #BITS} (no per-hold atomic object): the {@link State}'s
     * ordinal (bits 0–1; 0 is HELD), whether the remote clean-up after a loss was already claimed (bit 2, once per
     * hold), whether a thread owns the hold (bit 3, set once at construction), and {@link #expiryIndex()} + 1 (bits
     * 4–31, 0 when not tracked). Apart, they made every hold 8 bytes larger.
     */
    private volatile int bits;
    /** Guarded by the nameState's lock: the thread-owned reentrancy count. */
    int count = 1;
    /** When the last successful renewal was sent: the server's lease runs at least leaseMillis from here. */
    volatile long renewedAtNanos;
    /**
     * The listeners and the reason of a loss, created by the first {@link #onLost} or by the loss: most holds never
     * get either.
     */
    private volatile Lost lost;
    private static final java.lang.invoke.VarHandle LOST;
    private static final java.lang.invoke.VarHandle BITS;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            LOST = lookup.findVarHandle(Hold.class, "lost", Lost.class);
            BITS = lookup.findVarHandle(Hold.class, "bits", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param ownerId the owner the engine asked the backend for; the grant must name it (the hold keeps no copy: the
     *        owner id is the grant's)
     */
    Hold(NameState nameState, String ownerId, boolean threadOwned, Grant grant, long acquiredAtNanos) {
        assert grant.ownerId().equals(ownerId) : "the " + nameState.engine.backendName + " backend granted lock '"
                + grant.name() + "' to " + grant.ownerId() + " when " + ownerId + " asked";
        this.nameState = nameState;
        this.bits = threadOwned ? THREAD_OWNED : 0;
        this.grant = grant;
        this.acquiredAtNanos = acquiredAtNanos;
        this.renewedAtNanos = grant.requestedAtNanos();
    }

    String name() {
        return nameState.name;
    }

    /** The owner id: a thread's ({@code clientId:threadId}) or this lease's own. */
    String ownerId() {
        return grant.ownerId();
    }

    /** Whether a thread owns this hold (reentrant {@code lock()}/{@code unlock()}), not a lease handle. */
    boolean threadOwned() {
        return (bits & THREAD_OWNED) != 0;
    }

    State state() {
        return STATES[bits & STATE_MASK];
    }

    void setState(State s) {
        int b;
        do {
            b = bits;
        } while (!BITS.compareAndSet(this, b, (b & ~STATE_MASK) | s.ordinal()));
    }

    boolean casState(State expected, State s) {
        for (;;) {
            int b = bits;
            if ((b & STATE_MASK) != expected.ordinal()) {
                return false;
            }
            if (BITS.compareAndSet(this, b, (b & ~STATE_MASK) | s.ordinal())) {
                return true;
            }
        }
    }

    /** Whether this call is the first to claim the one remote clean-up after a loss. */
    boolean claimCleanUp() {
        for (;;) {
            int b = bits;
            if ((b & CLEANED_UP) != 0) {
                return false;
            }
            if (BITS.compareAndSet(this, b, b | CLEANED_UP)) {
                return true;
            }
        }
    }

    /**
     * Position in {@link FixedLeaseExpiry}'s heap, -1 when not tracked there; written under its lock (read without
     * it only to skip holds that were never tracked). The deadline itself is kept there, not here.
     */
    @Override
    public int expiryIndex() {
        return (bits >>> EXPIRY_SHIFT) - 1;
    }

    /** Sets {@link #expiryIndex()}: -1 to {@link #MAX_EXPIRY_INDEX}; under {@link FixedLeaseExpiry}'s lock. */
    @Override
    public void expiryIndex(int i) {
        int field = (i + 1) << EXPIRY_SHIFT;
        int b;
        do {
            b = bits;
        } while (!BITS.compareAndSet(this, b, (b & ((1 << EXPIRY_SHIFT) - 1)) | field));
    }

    /** The reason of the loss, or {@code null} while not lost. */
    String lostReason() {
        Lost l = lost;
        return l == null ? null : l.reason;
    }

    private Lost lostNote() {
        Lost l = lost;
        if (l == null) {
            LOST.compareAndSet(this, null, new Lost());
            l = lost;
        }
        return l;
    }

    @Override
    public Renewer renewer() {
        return new Renewer.Locks(nameState.ops);
    }

    @Override
    public Grant grant() {
        return grant;
    }

    @Override
    public void renewedAt(long sentAtNanos) {
        renewedAtNanos = sentAtNanos;
    }

    @Override
    public boolean isHeld() {
        return (bits & STATE_MASK) == 0;
    }

    /** Local bound of the server's lease: past it, the lock may already belong to someone else. */
    @Override
    public long leaseBoundNanos() {
        return renewedAtNanos + grant.leaseMillis() * 1_000_000L;
    }

    /**
     * Marks a held lock lost (watchdog, fixed lease, client close): stops renewing it, frees the local queue, runs
     * the listeners once. Returns whether this call did it.
     */
    boolean markLost(String reason) {
        if (!beginLost(reason)) {
            return false;
        }
        finishLost();
        return true;
    }

    /**
     * Its fixed lease ran out ({@link FixedLeaseExpiry}, on the timer thread): lost first, then the recipe's
     * server-side clean-up ({@link io.latchkey.core.RemoteLockOps#leaseEnded}), then the listeners.
     */
    @Override
    public void leaseRanOut() {
        if (!beginLost(String.format("its fixed lease of %d ms ran out", grant.leaseMillis()))) {
            return;
        }
        try {
            nameState.ops.leaseEnded(grant);
        } catch (RuntimeException e) {
            log.warn("the {} backend's clean-up at the end of the fixed lease of lock '{}' (token {}) failed",
                    nameState.engine.backendName, name(), grant.fencingToken(), e);
        }
        finishLost();
    }

    /**
     * First half of {@link #markLost}: only the state change, so that a batch of holds can all turn lost before
     * any listener runs (a listener that reacts by unlocking another hold of the batch must find it lost too).
     */
    @Override
    public boolean beginLost(String reason) {
        if (!casState(State.HELD, State.LOST)) {
            return false;
        }
        lostNote().reason = reason;
        return true;
    }

    /** Second half of {@link #markLost}, after {@link #beginLost} returned {@code true}. */
    @Override
    public void finishLost() {
        nameState.engine.forget(this);
        nameState.onHoldLost(this);
        afterLost();
    }

    /** The backend reported at release (or hand-off) time that the lock was no longer ours. */
    void lostAtRelease(String reason) {
        lostNote().reason = reason;
        int b;
        do {
            b = bits;
        } while (!BITS.compareAndSet(this, b, (b & ~STATE_MASK) | CLEANED_UP | State.LOST.ordinal()));
        afterLost();
    }

    private void afterLost() {
        String reason = lostReason();
        if (LockEngine.CLIENT_CLOSED.equals(reason)) {
            // our own close: nobody else took it, and the close releases it unless told not to
            log.info("lock '{}' held by {} (token {}) ends: {}", name(), ownerId(), grant.fencingToken(), reason);
        } else {
            log.warn("lock '{}' held by {} (token {}) was lost: {}", name(), ownerId(), grant.fencingToken(), reason);
        }
        nameState.engine.events.lost(name(), reason);
        // the state is LOST before this read: an onLost that adds to the queue later sees it and runs itself
        ConcurrentLinkedQueue<Runnable> q = lost;
        if (q == null) {
            return;
        }
        Runnable r;
        while ((r = q.poll()) != null) {
            runListener(r);
        }
    }

    @Override
    public void onLost(Runnable listener) {
        java.util.Objects.requireNonNull(listener, "listener");
        if (state() == State.LOST) {
            runListener(listener);
            return;
        }
        ConcurrentLinkedQueue<Runnable> q = lostNote();
        q.add(listener);
        // the loss may have drained the queue between the check and the add: whoever removes it runs it
        if (state() == State.LOST && q.remove(listener)) {
            runListener(listener);
        }
    }

    /** Drops {@code listener} if it has not run (identity, like {@link ConcurrentLinkedQueue#remove}). */
    @Override
    public void removeOnLost(Runnable listener) {
        ConcurrentLinkedQueue<Runnable> q = lost;
        if (q != null) {
            q.remove(listener);
        }
    }

    private void runListener(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            log.warn("onLost listener of lock '{}' threw", name(), e);
        }
    }

    LockLostException lostException(String action) {
        return new LockLostException(name(), String.format("lock '%s' was lost before %s (owner %s, token %d): %s",
                name(), action, ownerId(), grant.fencingToken(), lostReason()));
    }

    // The LockLease of a lease-owned hold.

    @Override
    public String lockName() {
        return name();
    }

    @Override
    public long fencingToken() {
        return grant.fencingToken();
    }

    @Override
    public boolean isValid() {
        return isHeld() && nameState.engine.isCertain(grant);
    }

    /**
     * Whether the server's lease is known to run past now: the last confirmed renewal (or the acquire) was sent
     * — or the grant arrived at {@code grantedAtNanos}, unless that is {@link Long#MIN_VALUE} — less than one lease
     * time ago. False after a long pause of this process until a renewal confirms the hold.
     */
    boolean withinLocalBound(long grantedAtNanos) {
        long now = nameState.engine.time.nanoTime();
        if (now - leaseBoundNanos() < 0) {
            return true;
        }
        return grantedAtNanos != Long.MIN_VALUE && now - grantedAtNanos - grant.leaseMillis() * 1_000_000L < 0;
    }

    @Override
    public void release() {
        nameState.engine.awaitRemote(releaseAsync(), "release", name());
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return nameState.release(this);
    }

    @Override
    public void close() {
        release();
    }

    /** A lease's as the user sees it ({@code LockLease{…}}); a thread-owned hold's with its owner. */
    @Override
    public String toString() {
        if (!threadOwned()) {
            return "LockLease{name='" + name() + "', token=" + grant.fencingToken() + ", state=" + state() + "}";
        }
        return "Hold{name='" + name() + "', owner=" + ownerId() + ", token=" + grant.fencingToken() + ", state="
                + state() + "}";
    }

    /**
     * From the grant, not the identity: sets of holds then iterate in the same order in every run of a deterministic
     * simulation. Equality stays identity. The name is part of it: one thread holding many locks has one owner id
     * and, on a fresh server, token 1 everywhere; without the name all its holds collided in the watchdog's set.
     */
    @Override
    public int hashCode() {
        return (grant.ownerId().hashCode() * 31 + grant.name().hashCode()) * 31 + Long.hashCode(grant.fencingToken());
    }

    @Override
    public boolean equals(Object o) {
        return o == this;
    }

    /** The listeners of a loss and, once lost, its reason: one object, made only for a hold that needs it. */
    @SuppressWarnings("serial") // never serialized: engine-internal
    private static final class Lost extends ConcurrentLinkedQueue<Runnable> {
        volatile String reason;
    }
}
