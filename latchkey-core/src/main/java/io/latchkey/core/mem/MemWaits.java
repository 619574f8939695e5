package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/** Blocking waits of the mem synchronizers, and their argument checks. */
final class MemWaits {

    private MemWaits() {
    }

    /**
     * Waits for {@code f}. On interrupt the wait is cancelled; a result that won the race with the cancel is
     * handed to {@code giveBack}, so nothing stays taken on behalf of a caller who got an exception.
     */
    static <T> T await(CompletableFuture<T> f, Consumer<T> giveBack) throws InterruptedException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            if (!f.cancel(false) && !f.isCompletedExceptionally()) {
                T won = f.getNow(null);
                if (won != null) {
                    giveBack.accept(won);
                }
            }
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof LockUnavailableException) {
                throw new LockUnavailableException(cause.getMessage(), cause);
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new LockUnavailableException(String.valueOf(cause), cause);
        }
    }

    /** A deadline on {@link System#nanoTime()} ({@code Long.MAX_VALUE}: none). */
    static long deadline(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException(String.format("waitTime must not be negative but was %s", waitTime));
        }
        long nanos;
        try {
            nanos = waitTime.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        if (nanos >= Long.MAX_VALUE / 4) {
            return Long.MAX_VALUE;
        }
        long d = System.nanoTime() + nanos;
        return d == Long.MAX_VALUE ? d - 1 : d;
    }

    static long leaseNanos(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(String.format("leaseTime must be positive but was %s", leaseTime));
        }
        try {
            return leaseTime.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    static int positive(int permits) {
        if (permits <= 0) {
            throw new IllegalArgumentException(String.format("permits must be positive but was %d", permits));
        }
        return permits;
    }

    static int notNegative(int permits) {
        if (permits < 0) {
            throw new IllegalArgumentException(String.format("permits must not be negative but was %d", permits));
        }
        return permits;
    }
}
