package io.latchkey.core.internal;

import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one subscription to a name's changes that a waiting machine keeps while any of its waiters is at the backend:
 * of every kind ({@link NameState}). It is taken on demand (the
 * {@code *Locked} methods run under the machine's lock), sent outside that lock ({@link #subscribe}), and closed
 * outside it once taken away ({@link #close}). A subscription that answers after it was taken away (or after a newer
 * one replaced it) closes itself; one that fails is forgotten, so that the re-checks cover and the next waiter at the
 * backend subscribes again. Not thread-safe by itself: guarded by the machine's lock.
 */
final class ChangeSubscription {
    private static final Logger log = LoggerFactory.getLogger(ChangeSubscription.class);

    /** The current subscription (a placeholder until the backend answers), or {@code null}. */
    private CompletableFuture<RemoteCountOps.Subscription> current;

    /** Under the machine's lock: a new placeholder to {@linkplain #subscribe subscribe} with, or {@code null} if one is current. */
    CompletableFuture<RemoteCountOps.Subscription> beginLocked() {
        if (current != null) {
            return null;
        }
        current = new CompletableFuture<>();
        return current;
    }

    /** Under the machine's lock: whether a subscription is current (taken or on its way). */
    boolean activeLocked() {
        return current != null;
    }

    /** Under the machine's lock: takes the current subscription away, to {@linkplain #close close} outside the lock. */
    CompletableFuture<RemoteCountOps.Subscription> takeLocked() {
        CompletableFuture<RemoteCountOps.Subscription> s = current;
        current = null;
        return s;
    }

    /** Outside the machine's lock: closes a subscription taken away, if it took effect (a pending one closes itself). */
    static void close(CompletableFuture<RemoteCountOps.Subscription> taken) {
        if (taken != null && taken.isDone() && !taken.isCompletedExceptionally()) {
            taken.join().close();
        }
    }

    /**
     * Outside the machine's lock: sends the subscription {@code placeholder} stands for. When it takes effect and is
     * still current (and {@code staleLocked} says no), {@code changed} runs once, so that a change before it took
     * effect is looked for now.
     *
     * @param lock the machine's lock
     * @param staleLocked under the lock: whether the machine went away meanwhile (the subscription then closes)
     * @param call the backend's subscribe call, which pushes to {@code changed}
     * @param what the name, for the log
     */
    void subscribe(ReentrantLock lock, BooleanSupplier staleLocked,
                   CompletableFuture<RemoteCountOps.Subscription> placeholder,
                   Supplier<CompletableFuture<RemoteCountOps.Subscription>> call, Runnable changed, String what) {
        CompletableFuture<RemoteCountOps.Subscription> f = LockEngine.callRemote(call);
        f.whenComplete((sub, e) -> {
            boolean close;
            lock.lock();
            try {
                close = staleLocked.getAsBoolean() || current != placeholder;
                if (!close && e != null) {
                    current = null; // the re-checks cover; the next waiter at the backend subscribes again
                } else if (!close) {
                    // under the lock: whoever takes it away from now on finds it done and closes it (nothing
                    // depends on the placeholder, so completing it runs no code)
                    placeholder.complete(sub);
                }
            } finally {
                lock.unlock();
            }
            if (e != null) {
                log.debug("subscribing to changes of '{}' failed; re-checking instead: {}", what,
                        LockEngine.unwrap(e).toString());
            } else if (close) {
                if (sub != null) {
                    sub.close();
                }
            } else {
                changed.run(); // a change before the subscription took effect is looked for now
            }
        });
    }
}
