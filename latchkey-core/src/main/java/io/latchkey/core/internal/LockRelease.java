package io.latchkey.core.internal;

import io.latchkey.LockLostException;
import io.latchkey.core.Grant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release of a lock hold of a {@link NameState}: to the next local waiter of an exclusive lock by a
 * {@linkplain io.latchkey.core.RemoteLockOps#handOff hand-off} in one round trip (never free in between, at most
 * {@link LockEngine#MAX_LOCAL_HAND_OFFS} times in a row, then a real release so that other clients' waiters get their
 * turn), or at the backend; and the clean-up release of a hold already known lost. Every method runs without the
 * name state's lock held and takes it itself.
 */
final class LockRelease {
    private static final Logger log = LoggerFactory.getLogger(LockRelease.class);

    private LockRelease() {
    }

    /**
     * Releases {@code h} (its count already at zero, or a lease): hands the lock to the next local waiter, or
     * releases it at the backend. The future fails with {@link LockLostException} if the lock had been lost.
     */
    static CompletableFuture<Void> release(NameState s, Hold h) {
        if (!h.casState(Hold.State.HELD, Hold.State.RELEASING)) {
            if (h.state() == Hold.State.LOST) {
                return releaseLost(s, h);
            }
            return CompletableFuture.completedFuture(null);
        }
        // stop renewing BEFORE the remote release, so that no renewal can outlive it
        s.engine.forget(h);
        Waiter<?> next;
        s.lock();
        try {
            // the hand-off is the next waiter's attempt: its deadline or a cancel waits for the answer
            next = s.releaseHoldLocked(h);
        } finally {
            s.unlock();
        }
        return next != null ? handOff(s, h, next) : remoteRelease(s, h);
    }

    private static CompletableFuture<Void> remoteRelease(NameState s, Hold h) {
        CompletableFuture<Boolean> f = s.engine.writes.call(() -> s.ops.release(h.grant));
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((ok, e) -> {
            Waiter<?> next;
            s.lock();
            try {
                s.releasedLocked();
                next = s.pumpLocked();
                s.idleCheckLocked();
            } finally {
                s.unlock();
            }
            if (e != null) {
                // no longer renewed: the server lets it expire with its lease
                h.setState(Hold.State.RELEASED);
                Throwable cause = LockEngine.unwrap(e);
                Trampoline.run(s.engine.callbacks, () -> result.completeExceptionally(cause));
            } else if (!Boolean.TRUE.equals(ok)) {
                h.lostAtRelease("the backend no longer had it when it was released");
                Trampoline.run(s.engine.callbacks, () -> result.completeExceptionally(h.lostException("release")));
            } else {
                h.setState(Hold.State.RELEASED);
                s.engine.events.released(s.name, s.engine.time.nanoTime() - h.acquiredAtNanos);
                Trampoline.run(s.engine.callbacks, () -> result.complete(null));
            }
            s.send(next);
        });
        return result;
    }

    private static CompletableFuture<Void> handOff(NameState s, Hold h, Waiter<?> next) {
        CompletableFuture<Grant> f = s.engine.writes.call(() -> s.ops.handOff(h.grant, next.request));
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((g, e) -> {
            s.lock();
            try {
                next.handOffAnswered();
            } finally {
                s.unlock();
            }
            if (e == null && g != null) {
                h.setState(Hold.State.RELEASED);
                s.engine.events.released(s.name, s.engine.time.nanoTime() - h.acquiredAtNanos);
                WaitAnswers.settle(s, next, g, null, true);
                Trampoline.run(s.engine.callbacks, () -> result.complete(null));
                return;
            }
            // the next waiter goes back to the head of the queue and acquires normally
            Waiter<?> send;
            boolean cancelled;
            boolean requeued;
            s.lock();
            try {
                requeued = s.handOffFailedLocked(next, e);
                cancelled = !requeued && next.state() == Waiter.State.CANCELLED;
                send = s.pumpLocked();
                s.idleCheckLocked();
            } finally {
                s.unlock();
            }
            if (cancelled) {
                Trampoline.run(s.engine.callbacks, () -> next.future.complete(null));
            }
            if (e != null && !requeued) {
                // the hand-off may have passed the lock to a waiter that makes no further attempt now
                s.kind.cleanUp(s, next);
            }
            if (e != null) {
                h.setState(Hold.State.RELEASED);
                Throwable cause = LockEngine.unwrap(e);
                Trampoline.run(s.engine.callbacks, () -> result.completeExceptionally(cause));
            } else {
                h.lostAtRelease("the backend no longer had it when it was handed off");
                Trampoline.run(s.engine.callbacks, () -> result.completeExceptionally(h.lostException("release")));
            }
            s.send(send);
        });
        return result;
    }

    /**
     * Release of a hold already known lost: clean up remotely once (best effort), then report the loss. The loss
     * is reported when the clean-up answered or after half the operation timeout, whichever comes first: a backend
     * still reconnecting after the outage that lost the hold must not turn a known loss into
     * {@code LockUnavailableException}. A later clean-up is harmless: releases only ever touch the exact grant.
     */
    static CompletableFuture<Void> releaseLost(NameState s, Hold h) {
        if (s.engine.isClosed() || !h.claimCleanUp()) {
            return CompletableFuture.failedFuture(h.lostException("release"));
        }
        CompletableFuture<Boolean> f = s.engine.writes.call(() -> s.ops.release(h.grant));
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((ok, e) -> {
            if (e != null) {
                log.debug("clean-up release of lost lock '{}' failed", s.name, e);
            }
            result.completeExceptionally(h.lostException("release"));
        });
        if (!result.isDone()) {
            ScheduledFuture<?> bound = s.engine.watchdog.schedule(
                    () -> result.completeExceptionally(h.lostException("release")), s.engine.remoteTimeoutNanos() / 2);
            if (bound == null) {
                result.completeExceptionally(h.lostException("release")); // closing
            } else {
                result.whenComplete((v, e) -> bound.cancel(false));
            }
        }
        return result;
    }}
