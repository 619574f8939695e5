package io.latchkey.core.internal;

import io.latchkey.LockEventListener;
import io.latchkey.core.AcquireRequest;

/**
 * How an acquire starts in its {@link NameState}, for every kind: a thread-owned caller of a lock re-enters its own
 * live hold ({@link #reenter}: no waiter, no round trip); otherwise a {@link Waiter} is queued ({@link #enqueue}) and
 * sent if it is the one at the backend, and its one deadline timer is armed on the watchdog thread unless the first
 * attempt answered on the caller's stack. A single look on a name this client is busy with already answers at once,
 * without a round trip ({@link NameState#busyForOneLookLocked}).
 */
final class WaitStart {

    private WaitStart() {
    }

    /**
     * Re-enters the calling owner's live thread-owned hold of {@code key} (its count goes up by one), or returns
     * {@code null} when it holds none: then the caller {@linkplain #enqueue enqueues} a waiter.
     */
    static Hold reenter(LockEngine engine, NameState.NameKey key, String ownerId) {
        NameState nameState = engine.nameStates.get(key);
        if (nameState == null) {
            return null;
        }
        nameState.lock.lock();
        try {
            return nameState.dead ? null : nameState.reenterLocked(ownerId);
        } finally {
            nameState.lock.unlock();
        }
    }

    /**
     * Starts an acquire that needs the backend: creates and queues a {@link Waiter} and returns it; its future
     * completes later, or at once for a single attempt refused because this client holds or waits for the name
     * already. A thread-owned caller {@linkplain #reenter re-enters} its own hold first.
     *
     * @param waitNanos negative to wait as long as needed, zero for a single attempt
     */
    static Waiter enqueue(LockEngine engine, NameState.NameKey key, String ownerId, boolean threadOwned,
                          long leaseMillis, boolean watchdogRenewed, long waitNanos, boolean bypass) {
        return enqueue(engine, key, ownerId, threadOwned, leaseMillis, watchdogRenewed, waitNanos, bypass, 1,
                waitNanos != 0);
    }

    /**
     * As above, for any kind: {@code permits} is what a semaphore's waiter asks for; {@code waits} says whether it
     * waits at all (a single look does not).
     */
    static Waiter enqueue(LockEngine engine, NameState.NameKey key, String ownerId, boolean threadOwned,
                          long leaseMillis, boolean watchdogRenewed, long waitNanos, boolean bypass, int permits,
                          boolean waits) {
        // a lock's acquire is told to the event listener here, on the caller's thread; its end when its future ends
        LockEventListener.AcquireWait observed = key.count() == null ? engine.events.waitStarted(key.name()) : null;
        if (observed == null) {
            return start(engine, key, ownerId, threadOwned, leaseMillis, watchdogRenewed, waitNanos, bypass, permits,
                    waits);
        }
        Waiter w;
        try {
            w = start(engine, key, ownerId, threadOwned, leaseMillis, watchdogRenewed, waitNanos, bypass, permits,
                    waits);
        } catch (RuntimeException e) {
            engine.events.failedToStart(observed, key.name(), e);
            throw e;
        }
        engine.events.watch(w, observed, engine.time);
        return w;
    }

    private static Waiter start(LockEngine engine, NameState.NameKey key, String ownerId, boolean threadOwned,
                                long leaseMillis, boolean watchdogRenewed, long waitNanos, boolean bypass, int permits,
                                boolean waits) {
        String name = key.name();
        long startNanos = engine.time.nanoTime();
        long deadline = Waits.deadline(startNanos, waitNanos);
        for (;;) {
            NameState nameState = engine.nameStates.computeIfAbsent(key, engine.newNameState);
            Waiter w;
            Waiter send = null;
            boolean refused = false;
            nameState.lock.lock();
            try {
                if (nameState.dead) {
                    continue;
                }
                engine.checkOpen();
                nameState.reviveLocked();
                if (threadOwned) {
                    // a new acquire after an unacknowledged loss starts afresh
                    nameState.forgetLostHoldLocked(ownerId);
                }
                AcquireRequest request = new AcquireRequest(name, ownerId, leaseMillis, watchdogRenewed, deadline,
                        engine.time);
                w = new Waiter(nameState, ownerId, threadOwned, bypass, startNanos, request, permits, waits);
                if (!bypass && !waits && nameState.busyForOneLookLocked()) {
                    // busy here already: a single look need not ask the backend
                    w.state = Waiter.State.TIMED_OUT;
                    refused = true;
                    nameState.idleCheckLocked();
                } else {
                    send = nameState.enqueueLocked(w);
                }
            } finally {
                nameState.lock.unlock();
            }
            if (refused) {
                nameState.kind.timedOut(nameState, w);
                w.future.complete(null);
                return w;
            }
            nameState.send(send);
            if (w.hasDeadline() && !w.future.isDone()) {
                // armed after the send: an attempt answered on this stack (mem://, an uncontended tryLock) needs no
                // timer; one that completes right after this check finds the waiter settled (onDeadline ignores it)
                w.timer = Waits.armDeadline(engine, deadline, () -> nameState.onDeadline(w));
                if (w.future.isDone()) {
                    w.cancelTimer(); // settled while the timer was armed: do not keep it until the deadline
                }
            }
            return w;
        }
    }
}
