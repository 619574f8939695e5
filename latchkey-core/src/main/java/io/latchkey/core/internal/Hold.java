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
final class Hold implements Renewable, LockLease {
    private static final Logger log = LoggerFactory.getLogger(Hold.class);

    enum State { HELD, RELEASING, RELEASED, LOST }

    final NameState nameState;
    final String ownerId;
    final boolean threadOwned;
    final Grant grant;
    final long acquiredAtNanos;
    /** HELD, RELEASING, RELEASED or LOST; changed through {@link #STATE} (no per-hold atomic object). */
    private volatile State state = State.HELD;
    /** Guarded by the nameState's lock: the thread-owned reentrancy count. */
    int count = 1;
    /** When the last successful renewal was sent: the server's lease runs at least leaseMillis from here. */
    volatile long renewedAtNanos;
    /**
     * Written under {@link FixedLeaseExpiry}'s lock: position in its heap, -1 when not tracked there (read without
     * the lock only to skip holds that were never tracked). The deadline itself is kept there, not here.
     */
    int expiryIndex = -1;
    volatile String lostReason;
    /** Whether the remote clean-up after a loss was already sent (once per hold); set through {@link #CLEANED_UP}. */
    private volatile boolean cleanedUp;
    /** Created by the first {@link #onLost}: most holds never get a listener. */
    private volatile ConcurrentLinkedQueue<Runnable> lostListeners;
    private static final java.lang.invoke.VarHandle LOST_LISTENERS;
    private static final java.lang.invoke.VarHandle STATE;
    private static final java.lang.invoke.VarHandle CLEANED_UP;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            LOST_LISTENERS = lookup.findVarHandle(Hold.class, "lostListeners", ConcurrentLinkedQueue.class);
            STATE = lookup.findVarHandle(Hold.class, "state", State.class);
            CLEANED_UP = lookup.findVarHandle(Hold.class, "cleanedUp", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    Hold(NameState nameState, String ownerId, boolean threadOwned, Grant grant, long acquiredAtNanos) {
        this.nameState = nameState;
        this.ownerId = ownerId;
        this.threadOwned = threadOwned;
        this.grant = grant;
        this.acquiredAtNanos = acquiredAtNanos;
        this.renewedAtNanos = grant.requestedAtNanos();
    }

    String name() {
        return nameState.name;
    }

    State state() {
        return state;
    }

    void setState(State s) {
        state = s;
    }

    boolean casState(State expected, State s) {
        return STATE.compareAndSet(this, expected, s);
    }

    /** Whether this call is the first to claim the one remote clean-up after a loss. */
    boolean claimCleanUp() {
        return CLEANED_UP.compareAndSet(this, false, true);
    }

    @Override
    public Object renewer() {
        return nameState.ops;
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
        return state == State.HELD;
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
     * First half of {@link #markLost}: only the state change, so that a batch of holds can all turn lost before
     * any listener runs (a listener that reacts by unlocking another hold of the batch must find it lost too).
     */
    @Override
    public boolean beginLost(String reason) {
        if (!casState(State.HELD, State.LOST)) {
            return false;
        }
        lostReason = reason;
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
        lostReason = reason;
        cleanedUp = true;
        state = State.LOST;
        afterLost();
    }

    private void afterLost() {
        log.warn("lock '{}' held by {} (token {}) was lost: {}", name(), ownerId, grant.fencingToken(), lostReason);
        nameState.engine.events.lost(name());
        // the state is LOST before this read: an onLost that creates the queue later sees it and runs itself
        ConcurrentLinkedQueue<Runnable> q = lostListeners;
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
        if (state == State.LOST) {
            runListener(listener);
            return;
        }
        ConcurrentLinkedQueue<Runnable> q = lostListeners;
        if (q == null) {
            LOST_LISTENERS.compareAndSet(this, null, new ConcurrentLinkedQueue<Runnable>());
            q = lostListeners;
        }
        q.add(listener);
        // the loss may have drained the queue between the check and the add: whoever removes it runs it
        if (state == State.LOST && q.remove(listener)) {
            runListener(listener);
        }
    }

    /** Drops {@code listener} if it has not run (identity, like {@link ConcurrentLinkedQueue#remove}). */
    @Override
    public void removeOnLost(Runnable listener) {
        ConcurrentLinkedQueue<Runnable> q = lostListeners;
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
                name(), action, ownerId, grant.fencingToken(), lostReason));
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
        if (!threadOwned) {
            return "LockLease{name='" + name() + "', token=" + grant.fencingToken() + ", state=" + state + "}";
        }
        return "Hold{name='" + name() + "', owner=" + ownerId + ", token=" + grant.fencingToken() + ", state="
                + state + "}";
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
}
