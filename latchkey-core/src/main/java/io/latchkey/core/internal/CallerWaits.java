package io.latchkey.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The caller's side of a wait, for locks and counted resources alike: a thread blocks on a waiter's result, or an
 * asynchronous caller gets a future of it. Giving up (an interrupt, a cancelled future) withdraws the waiter; what a
 * grant that raced the give-up took is given back before the interrupt is reported, so an interrupted or cancelled
 * acquire holds nothing. The waiting machine says how to give up ({@code giveUp}: leave the queue at once, or let the
 * attempt that is out answer first) and how to give back ({@code giveBack}: release a lock's hold, give a
 * semaphore's permits, release a leased permit).
 */
final class CallerWaits {

    private CallerWaits() {
    }

    /**
     * Blocks until {@code result} completes and returns it ({@code null}: the wait ran out). Interrupted while
     * {@code interruptible}: gives up, waits (uninterruptibly, bounded by the operation timeout) for the answer of the
     * attempt that was out, gives back what it took, and throws {@link InterruptedException} with the flag cleared
     * (as {@code java.util.concurrent} does). Not {@code interruptible}: keeps waiting and sets the flag again on
     * return.
     */
    static <T> T await(LockEngine engine, CompletableFuture<T> result, String name, boolean interruptible,
                       Runnable giveUp, Function<T, CompletableFuture<?>> giveBack) throws InterruptedException {
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    if (!interruptible) {
                        interrupted = true;
                        continue;
                    }
                    giveUp.run();
                    T late = engine.awaitQuietly(result, "cancel acquire", name);
                    if (late != null) {
                        engine.awaitQuietly(giveBack.apply(late), "give back", name);
                    }
                    Thread.interrupted(); // a second interrupt while it waited for the answer is part of this one
                    throw e;
                } catch (ExecutionException e) {
                    throw LockEngine.rethrow(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@code result} for an asynchronous caller: completes with {@code map} applied to it (on a Latchkey thread), or
     * with its failure. Cancelling the returned future gives up the waiter; a result that arrives after the caller
     * cancelled, or that {@code map} fails on, is given back.
     */
    static <T, R> CompletableFuture<R> async(CompletableFuture<T> result, Function<T, R> map, Runnable giveUp,
                                             Consumer<T> giveBack) {
        CompletableFuture<R> out = new CompletableFuture<>();
        result.whenComplete((r, e) -> {
            if (e != null) {
                out.completeExceptionally(LockEngine.unwrap(e));
                return;
            }
            if (out.isDone()) {
                if (r != null) {
                    giveBack.accept(r); // the caller cancelled while the grant was on its way
                }
                return;
            }
            R mapped;
            try {
                mapped = map.apply(r);
            } catch (RuntimeException x) {
                if (r != null) {
                    giveBack.accept(r);
                }
                out.completeExceptionally(x);
                return;
            }
            if (!out.complete(mapped) && r != null) {
                giveBack.accept(r);
            }
        });
        out.whenComplete((r, e) -> {
            if (out.isCancelled()) {
                giveUp.run(); // if it was no longer waiting, its result arrives above and is given back
            }
        });
        return out;
    }
}
