package io.latchkey.tck;

import java.lang.Thread.State;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A test body running on its own platform thread, so that a test can observe it blocking, interrupt it, and
 * collect its result or exception.
 */
public final class Forked<T> {

    private final Thread thread;
    private final CompletableFuture<T> result = new CompletableFuture<>();

    private Forked(String name, Callable<T> body) {
        this.thread = new Thread(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
    }

    static <T> Forked<T> start(String name, Callable<T> body) {
        Forked<T> forked = new Forked<>(name, body);
        forked.thread.start();
        return forked;
    }

    public Thread thread() {
        return thread;
    }

    /** Completes with the body's result or exception. */
    public CompletableFuture<T> result() {
        return result;
    }

    public boolean isDone() {
        return result.isDone();
    }

    /** Whether the thread is parked (waiting for a lock, presumably). */
    public boolean isBlocked() {
        State state = thread.getState();
        return state == State.WAITING || state == State.TIMED_WAITING || state == State.BLOCKED;
    }

    /** The body's result, waiting at most {@code timeout}; rethrows the body's exception as its cause. */
    public T get(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exception the body threw, waiting at most {@code timeout}; fails if it returned normally. */
    public Throwable failure(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            T value = result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError(thread.getName() + " returned " + value + " instead of throwing");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
