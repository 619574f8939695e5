package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Blocking waits and argument checks of the synchronizers that are not locks (semaphores, latches): bounded waits
 * for single commands, interruptible waits for {@link WaitingAcquire}s, and the registry of pending waits that
 * {@link #close()} abandons.
 */
final class SyncWaits {

    private final Duration operationTimeout;
    private final String address;
    private final Set<AcquireRequest> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    SyncWaits(Duration operationTimeout, String address) {
        this.operationTimeout = operationTimeout;
        this.address = address;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("client closed");
        }
    }

    /** Abandons every pending wait; their callers see {@link IllegalStateException}. */
    void close() {
        closed = true;
        for (AcquireRequest r : pending) {
            r.cancel();
        }
    }

    /** Waits for one command's answer, at most the operation timeout plus a margin. */
    <T> T get(CompletableFuture<T> f, String operation) {
        try {
            return getInterruptibly(f, operation);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException(String.format("interrupted while waiting for %s on redis at %s",
                    operation, address), e);
        }
    }

    /** {@link #get}, but an interrupt ends the wait with {@link InterruptedException} (the command still runs). */
    <T> T getInterruptibly(CompletableFuture<T> f, String operation) throws InterruptedException {
        long bound = operationTimeout.toNanos() + Math.max(operationTimeout.toNanos() / 10,
                TimeUnit.MILLISECONDS.toNanos(50));
        try {
            return f.get(bound, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (TimeoutException e) {
            throw new LockUnavailableException(String.format("no answer to %s from redis at %s within %s",
                    operation, address, operationTimeout), e);
        }
    }

    /**
     * Runs a waiting acquire to its end. Returns the grant, or {@code null} if the deadline passed. On interrupt the
     * wait is abandoned and a grant that won the race is handed to {@code giveBack}, so an interrupted caller
     * holds nothing.
     *
     * @param deadlineNanos on {@link System#nanoTime()}; {@link AcquireRequest#NO_DEADLINE} to wait forever
     */
    Grant await(String name, long deadlineNanos, Function<AcquireRequest, CompletableFuture<Grant>> start,
                Consumer<Grant> giveBack) throws InterruptedException {
        checkOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        AcquireRequest request = new AcquireRequest(name, "-", 1, false, deadlineNanos, TimeSource.SYSTEM);
        pending.add(request);
        CompletableFuture<Grant> f = null;
        try {
            f = start.apply(request);
            Grant g = f.get();
            if (g == null && closed) {
                throw new IllegalStateException("client closed");
            }
            return g;
        } catch (InterruptedException e) {
            request.cancel();
            if (f != null) {
                f.thenAccept(won -> {
                    if (won != null) {
                        giveBack.accept(won);
                    }
                });
            }
            throw e;
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } finally {
            pending.remove(request);
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        Throwable c = RedisErrors.unwrap(cause);
        if (c instanceof LockUnavailableException) {
            return new LockUnavailableException(c.getMessage(), c);
        }
        if (c instanceof RuntimeException) {
            return (RuntimeException) c;
        }
        return new LockUnavailableException(String.valueOf(c), c);
    }
}
