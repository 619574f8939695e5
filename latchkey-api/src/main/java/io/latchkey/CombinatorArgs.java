package io.latchkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Argument checks and duration arithmetic shared by the lock combinators. */
final class CombinatorArgs {

    /** A wait without limit, in nanoseconds. */
    static final long FOREVER = Long.MAX_VALUE;

    private CombinatorArgs() {
    }

    /** A copy of {@code locks}, checked: not empty, no nulls, no object twice. */
    static List<DistributedLock> parts(String combinator, Collection<? extends DistributedLock> locks) {
        Objects.requireNonNull(locks, "locks");
        if (locks.isEmpty()) {
            throw new IllegalArgumentException(String.format("%s needs at least one lock but got none", combinator));
        }
        List<DistributedLock> copy = new ArrayList<>(locks.size());
        Map<DistributedLock, Integer> seen = new IdentityHashMap<>();
        int i = 0;
        for (DistributedLock lock : locks) {
            if (lock == null) {
                throw new NullPointerException(String.format("%s: locks[%d] is null", combinator, i));
            }
            Integer earlier = seen.putIfAbsent(lock, i);
            if (earlier != null) {
                throw new IllegalArgumentException(String.format(
                        "%s: locks[%d] is the same lock object as locks[%d] ('%s'); each lock may appear once",
                        combinator, i, earlier, lock.name()));
            }
            copy.add(lock);
            i++;
        }
        return copy;
    }

    static void checkLease(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(String.format("leaseTime must be positive but was %s", leaseTime));
        }
        if (leaseTime.compareTo(ClientOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException(String.format(
                    "leaseTime must be at most %s (ClientOptions.MAX_LEASE_TIME, 36500 days) but was %s",
                    ClientOptions.MAX_LEASE_TIME, leaseTime));
        }
    }

    /** Checks a lease that may be {@code null} (watchdog). */
    static void checkOptionalLease(Duration leaseTime) {
        if (leaseTime != null) {
            checkLease(leaseTime);
        }
    }

    /**
     * The wait in nanoseconds, saturated at {@link #FOREVER}; a negative wait is zero (one attempt), as every timed
     * method of {@code java.util.concurrent} treats it.
     */
    static long waitNanos(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            return 0;
        }
        return saturatedNanos(waitTime);
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return FOREVER;
        }
    }

    /**
     * The deadline for a wait of {@code waitNanos} starting now, or {@link #FOREVER}. Waits longer than about a
     * hundred years count as forever so that the deadline cannot overflow.
     */
    static long deadline(long waitNanos) {
        if (waitNanos >= Long.MAX_VALUE / 2) {
            return FOREVER;
        }
        return System.nanoTime() + waitNanos;
    }

    /** Nanoseconds left until {@code deadline} (never negative); {@link #FOREVER} for no deadline. */
    static long remaining(long deadline) {
        if (deadline == FOREVER) {
            return FOREVER;
        }
        return Math.max(0, deadline - System.nanoTime());
    }

    /** The exception inside a {@link java.util.concurrent.CompletionException} or similar wrapper. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof java.util.concurrent.CompletionException
                || t instanceof java.util.concurrent.ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Rethrows {@code t} unchecked, as is if it is a runtime exception or error. */
    static RuntimeException rethrow(Throwable t) {
        Throwable cause = unwrap(t);
        if (cause instanceof RuntimeException) {
            throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        throw new LockException("lock combinator failed: " + cause, cause);
    }

    /**
     * A future derived from {@code source} whose cancellation reaches {@code source}; if {@code source} already
     * produced a lease by then, that lease is released, so that cancelling never leaks a hold.
     */
    static <L extends LockLease, T> java.util.concurrent.CompletableFuture<T> cancellableView(
            java.util.concurrent.CompletableFuture<java.util.Optional<L>> source,
            java.util.function.Function<java.util.Optional<L>, T> map) {
        java.util.concurrent.CompletableFuture<T> view = source.thenApply(map);
        view.whenComplete((v, e) -> {
            if (view.isCancelled() && !source.cancel(false)) {
                source.thenAccept(lease -> lease.ifPresent(CombinatorArgs::releaseQuietly));
            }
        });
        return view;
    }

    /** Releases without waiting or reporting: for holds that were taken but are not wanted. */
    static java.util.concurrent.CompletableFuture<Void> releaseQuietly(LockLease lease) {
        try {
            return lease.releaseAsync().exceptionally(e -> null);
        } catch (RuntimeException e) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
    }
}
