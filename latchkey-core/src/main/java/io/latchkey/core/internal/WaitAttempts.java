package io.latchkey.core.internal;

import io.latchkey.core.RemoteLockOps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Single attempts of a name's waiters (every counted resource; a lock whose ops answers
 * {@linkplain RemoteLockOps#singleAttempts() single attempts}): the job of looking at the backend for the waiters of
 * one {@link NameState}, what each attempt asks being its {@link WaitKind}'s. A waiter at the backend (the head, or
 * each waiter of a fair lock) has at most one attempt out at a time ({@link Waiter#attempting}). A busy or queued
 * answer keeps it there with a re-check timer at the kind's delay and the name's one
 * {@linkplain ChangeSubscription subscription} (taken on the first busy answer, closed when no waiter of the name is
 * at the backend). A push ({@link #changed}) makes every waiter at the backend that is not looking look again; an
 * attempt that overlapped a push looks again at once when it answers. A waiter that leaves gives up its place in the
 * server's queue ({@link #withdraw}). Every method runs without the name state's lock held and takes it itself.
 */
final class WaitAttempts {
    private static final Logger log = LoggerFactory.getLogger(WaitAttempts.class);

    private WaitAttempts() {
    }

    /**
     * One attempt for {@code w} (the head at the backend, or any waiter of a fair lock), unless one is out already or
     * {@code w} is no longer waiting at the backend. Must be called without holding the lock.
     */
    static <R> void attempt(NameState s, Waiter<R> w) {
        int epoch;
        String entry;
        boolean heldBack = false;
        boolean firstHeldBack = false;
        s.lock();
        try {
            if (!w.beginAttempt()) {
                return;
            }
            epoch = s.changesLocked();
            entry = w.entry();
            if (s.withdrawingNowLocked()) {
                // after this name's withdrawals on their way, so that none is still ahead of it at the server
                heldBack = true;
                firstHeldBack = s.holdBackLocked(sending(s, w, epoch, entry));
            }
        } finally {
            s.unlock();
        }
        if (!heldBack) {
            send(s, w, epoch, entry);
        } else if (firstHeldBack) {
            // a withdrawal's answer is bounded by the backend's operation timeout; this bounds the wait regardless
            s.engine.watchdog.schedule(() -> sendAll(s.takeHeldBack()), s.engine.remoteTimeoutNanos());
        }
    }

    private static <R> Runnable sending(NameState s, Waiter<R> w, int epoch, String entry) {
        return () -> send(s, w, epoch, entry);
    }

    private static <R> void send(NameState s, Waiter<R> w, int epoch, String entry) {
        CompletableFuture<WaitKind.Look> f = s.engine.writes.call(() -> w.kind.attempt(s, w, entry));
        // a backend without I/O answers on this stack: a run of answers continues on the callback executor past the
        // trampoline's bound
        f.whenComplete((a, e) -> Trampoline.run(s.engine.callbacks, () -> attempted(s, w, epoch, a, e)));
    }

    /** Sends the attempts that were held back, in order ({@code null}: none). */
    private static void sendAll(List<Runnable> held) {
        if (held != null) {
            held.forEach(Runnable::run);
        }
    }

    /** The answer event: the backend answered an attempt for {@code w}. */
    private static void attempted(NameState s, Waiter<?> w, int epoch, WaitKind.Look a, Throwable e) {
        CompletableFuture<io.latchkey.core.RemoteCountOps.Subscription> subscribeNow = null;
        ChangeSubscription subscription = null;
        boolean again = false;
        boolean over = false;
        s.lock();
        try {
            w.answered(e);
            if (e == null && a != null && a.taken() == null) {
                // a grant or a failure keeps the waiter "attempting" until settled, so that its deadline cannot end
                // it in between and drop the grant
                w.busy(a.entry());
                if (w.lastLook(epoch)) {
                    over = true;
                } else if (s.changesLocked() != epoch) {
                    again = true;
                } else {
                    w.armRecheck(s.engine.watchdog.schedule(() -> attempt(s, w),
                            Math.max(MIN_RECHECK_NANOS, a.recheckNanos())));
                    subscription = s.subscriptionLocked();
                    subscribeNow = subscription.beginLocked();
                }
            }
        } finally {
            s.unlock();
        }
        if (subscribeNow != null) {
            subscription.subscribe(s, () -> false, subscribeNow, () -> s.kind.subscribe(s, () -> changed(s)),
                    () -> changed(s), s.name);
        }
        if (again) {
            attempt(s, w);
            return;
        }
        if (e != null || a == null || a.taken() != null) {
            if (e != null || a == null) {
                // a failed attempt may have made an entry the engine never learned of: a fair lock withdraws anyway
                withdraw(s, w, s.fair);
            }
            if (e != null) {
                // ... and a grant nobody will hear of: the waiter ends here, so its attempt id is undone
                s.kind.cleanUp(s, w);
            }
            WaitAnswers.settle(s, w, a == null ? null : a.taken(), e != null ? e
                    : a == null ? new IllegalStateException("backend answered no attempt") : null, false);
            closeUnusedSubscription(s);
        } else if (over) {
            withdraw(s, w, false);
            WaitAnswers.settle(s, w, null, null, false);
            closeUnusedSubscription(s);
        }
    }

    private static final long MIN_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The push event: every waiter at the backend that is not looking now looks again. */
    static void changed(NameState s) {
        List<Waiter<?>> wake = new ArrayList<>(2);
        s.lock();
        try {
            s.pushedLocked(wake);
        } finally {
            s.unlock();
        }
        for (Waiter<?> w : wake) {
            w.cancelRecheck();
            attempt(s, w);
        }
    }

    /** Closes the subscription once no waiter of this name is at the backend; outside the lock. */
    static void closeUnusedSubscription(NameState s) {
        CompletableFuture<io.latchkey.core.RemoteCountOps.Subscription> taken;
        s.lock();
        try {
            taken = s.unusedSubscriptionLocked();
        } finally {
            s.unlock();
        }
        if (taken != null) {
            ChangeSubscription.close(taken);
        }
    }

    /**
     * Gives up {@code w}'s place in the server's queue, if it has one (best effort: the backend retries); with
     * {@code unknown}, also when the engine knows of none (an attempt failed: it may have made one).
     */
    static void withdraw(NameState s, Waiter<?> w, boolean unknown) {
        String entry;
        boolean counted;
        s.lock();
        try {
            entry = w.takeEntry();
            // a counted resource has no place in a server's queue
            counted = s.ops != null && (entry != null || unknown) && s.withdrawingLocked();
        } finally {
            s.unlock();
        }
        w.cancelRecheck();
        if (s.ops == null || entry == null && !unknown) {
            return;
        }
        s.engine.writes.call(() -> s.ops.withdraw(w.request, entry)).whenComplete((v, e) -> {
            if (e != null) {
                log.debug("withdrawing the queue entry {} of lock '{}' failed", entry, s.name, e);
            }
            if (counted) {
                sendAll(s.withdrawAnswered());
            }
        });
    }
}
