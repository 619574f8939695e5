package io.latchkey.reactor;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Turns an acquisition (a future, or a blocking call run on a scheduler) into a {@link Mono} that never leaks what
 * it acquired: cancelling the subscription abandons the wait (the future is cancelled, the blocking call
 * interrupted), and a result that arrives after the cancellation anyway is handed to {@code undo} (released).
 */
final class Acquisitions {

    private static final int PENDING = 0;
    private static final int DELIVERED = 1;
    private static final int CANCELLED = 2;

    private Acquisitions() {
    }

    /** The future's value; an empty Mono for a null value. */
    static <R> Mono<R> fromFuture(Supplier<CompletableFuture<R>> start, Consumer<R> undo) {
        return Mono.create(sink -> {
            AtomicInteger state = new AtomicInteger(PENDING);
            CompletableFuture<R> future = start.get();
            sink.onCancel(() -> {
                if (state.compareAndSet(PENDING, CANCELLED)) {
                    future.cancel(false);
                }
            });
            future.whenComplete((value, error) -> {
                if (state.compareAndSet(PENDING, DELIVERED)) {
                    if (error != null) {
                        sink.error(unwrap(error));
                    } else if (value == null) {
                        sink.success();
                    } else {
                        sink.success(value);
                    }
                } else if (value != null) {
                    undo.accept(value);
                }
            });
        });
    }

    /** The blocking call's value, run on {@code scheduler}; an empty Mono for a null value. */
    static <R> Mono<R> blocking(Scheduler scheduler, Callable<R> call, Consumer<R> undo) {
        return Mono.create(sink -> {
            AtomicInteger state = new AtomicInteger(PENDING);
            Disposable task = scheduler.schedule(() -> {
                R value;
                try {
                    value = call.call();
                } catch (Throwable t) {
                    if (state.compareAndSet(PENDING, DELIVERED)) {
                        sink.error(t);
                    }
                    return;
                }
                if (state.compareAndSet(PENDING, DELIVERED)) {
                    if (value == null) {
                        sink.success();
                    } else {
                        sink.success(value);
                    }
                } else if (value != null) {
                    undo.accept(value);
                }
            });
            sink.onCancel(() -> {
                if (state.compareAndSet(PENDING, CANCELLED)) {
                    task.dispose(); // interrupts the waiting thread
                }
            });
        });
    }

    /**
     * The primitive's asynchronous call when it offers one (no thread waits: the engine's waiting is
     * asynchronous), else {@code blocking}, the same call run on the scheduler. {@code async} is tried once per
     * subscription; a primitive that does not offer it throws {@link UnsupportedOperationException} from the call
     * itself, before anything was started. Cancelling the subscription cancels the future (the engine withdraws the
     * waiter and gives back what a raced grant took); a value that arrives after the cancellation anyway goes to
     * {@code undo}.
     */
    static <R> Mono<R> preferFuture(Supplier<CompletableFuture<R>> async, Supplier<Mono<R>> blocking,
                                    Consumer<R> undo) {
        return Mono.defer(() -> {
            CompletableFuture<R> future;
            try {
                future = async.get();
            } catch (UnsupportedOperationException e) {
                return blocking.get();
            }
            return fromFuture(() -> future, undo);
        });
    }

    /** {@link #preferFuture} for a call without a resource to undo. */
    static <R> Mono<R> preferFuture(Supplier<CompletableFuture<R>> async, Supplier<Mono<R>> blocking) {
        return preferFuture(async, blocking, value -> { });
    }

    /** A blocking call without a resource to undo. */
    static <R> Mono<R> blocking(Scheduler scheduler, Callable<R> call) {
        return blocking(scheduler, call, value -> { });
    }

    private static Throwable unwrap(Throwable error) {
        if (error instanceof java.util.concurrent.CompletionException && error.getCause() != null) {
            return error.getCause();
        }
        return error;
    }
}
