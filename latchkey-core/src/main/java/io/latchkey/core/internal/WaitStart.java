package io.latchkey.core.internal;

import io.latchkey.LockEventListener;
import io.latchkey.core.AcquireRequest;

/**
 * The start event of the {@link NameState} machine, for every kind: a thread-owned caller of a lock re-enters its own
 * live hold ({@link #reenter}: no waiter, no round trip); otherwise a {@link Waiter} is queued ({@link #lock},
 * {@link #count}) and sent if it is the one at the backend, and its one deadline timer is armed on the watchdog thread
 * unless the first attempt answered on the caller's stack. A single look on a name this client is busy with already
 * answers at once, without a round trip ({@link NameState#busyForOneLookLocked}).
 */
final class WaitStart {

    private WaitStart() {
    }

    /**
     * Re-enters the calling owner's live thread-owned hold of {@code key} (its count goes up by one), or returns
     * {@code null} when it holds none: then the caller {@linkplain #lock queues} a waiter.
     */
    static Hold reenter(LockEngine engine, NameKey.Lock key, String ownerId) {
        NameState nameState = engine.nameStates.get(key);
        if (nameState == null) {
            return null;
        }
        nameState.lock();
        try {
            return nameState.deadLocked() ? null : nameState.reenterLocked(ownerId);
        } finally {
            nameState.unlock();
        }
    }

    /**
     * Starts a lock's acquire that needs the backend: queues a {@link Waiter} and returns it; its future completes
     * later, or at once for a single attempt refused because this client holds or waits for the name already. A
     * thread-owned caller {@linkplain #reenter re-enters} its own hold first. The acquire is told to the event
     * listener here, on the caller's thread; its end when its future ends.
     *
     * @param waitNanos negative to wait as long as needed, zero for a single attempt
     */
    static Waiter<Hold> lock(LockEngine engine, NameKey.Lock key, String ownerId, Waiter.Ownership ownership,
                             long leaseMillis, boolean watchdog, long waitNanos) {
        long startNanos = engine.time.nanoTime();
        AcquireRequest request = new AcquireRequest(key.name(), ownerId, leaseMillis, watchdog,
                Waits.deadline(startNanos, waitNanos), engine.time);
        LockEventListener.AcquireWait observed = engine.events.waitStarted(key.name());
        if (observed == null) {
            return enqueue(engine, key, LockKind.INSTANCE, request, ownership, startNanos, 1, waitNanos != 0);
        }
        Waiter<Hold> w;
        try {
            w = enqueue(engine, key, LockKind.INSTANCE, request, ownership, startNanos, 1, waitNanos != 0);
        } catch (RuntimeException e) {
            engine.events.failedToStart(observed, key.name(), e);
            throw e;
        }
        engine.events.watch(w, observed, engine.time);
        return w;
    }

    /**
     * Starts a wait for {@code permits} of a counted resource ({@code leaseMillis} and {@code watchdog}: a leased
     * permit's lease); a wait of zero is a single look, refused at once while a blocked waiter of this client waits.
     */
    static <R> Waiter<R> count(LockEngine engine, NameKey.Count<R> key, int permits, long leaseMillis, boolean watchdog,
                               long waitNanos) {
        long startNanos = engine.time.nanoTime();
        AcquireRequest request = new AcquireRequest(key.name(), engine.clientId, leaseMillis, watchdog,
                Waits.deadline(startNanos, waitNanos), engine.time);
        return enqueue(engine, key, key.kind(), request, Waiter.Ownership.LEASE, startNanos, permits, waitNanos != 0);
    }

    private static <R> Waiter<R> enqueue(LockEngine engine, NameKey key, WaitKind<R> kind, AcquireRequest request,
                                         Waiter.Ownership ownership, long startNanos, int permits, boolean waits) {
        for (;;) {
            NameState nameState = engine.nameStates.computeIfAbsent(key, engine.newNameState);
            Waiter<R> w;
            Waiter<?> send = null;
            boolean refused = false;
            nameState.lock();
            try {
                if (nameState.deadLocked()) {
                    continue;
                }
                engine.checkOpen();
                nameState.reviveLocked();
                if (ownership.threadOwned()) {
                    // a new acquire after an unacknowledged loss starts afresh
                    nameState.forgetLostHoldLocked(request.ownerId());
                }
                w = new Waiter<>(nameState, kind, request.ownerId(), ownership, startNanos, request, permits, waits);
                if (!w.bypass() && !waits && nameState.busyForOneLookLocked()) {
                    // busy here already: a single look need not ask the backend
                    w.moveTo(Waiter.State.TIMED_OUT);
                    refused = true;
                    nameState.idleCheckLocked();
                } else {
                    send = nameState.enqueueLocked(w);
                }
            } finally {
                nameState.unlock();
            }
            if (refused) {
                kind.timedOut(nameState, w);
                w.future.complete(null);
                return w;
            }
            nameState.send(send);
            if (w.hasDeadline() && !w.future.isDone()) {
                // armed after the send: an attempt answered on this stack (mem://, an uncontended tryLock) needs no
                // timer; one that completes right after this check finds the waiter settled (onDeadline ignores it)
                w.armTimer(Waits.armDeadline(engine, request.deadlineNanos(), () -> WaitEnds.onDeadline(nameState, w)));
                if (w.future.isDone()) {
                    w.cancelTimer(); // settled while the timer was armed: do not keep it until the deadline
                }
            }
            return w;
        }
    }
}
