package io.latchkey.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks shared by every backend's synchronizers (semaphores, latches), so that each rejects bad input
 * with the same {@link IllegalArgumentException} message ("leaseTime must be positive but was PT0S"), which the
 * TCK checks.
 */
public final class Arguments {

    private Arguments() {
    }

    /**
     * Computes the {@link System#nanoTime()} deadline of a wait of {@code waitTime}, starting now.
     *
     * @param waitTime how long to wait; zero or positive
     * @return the deadline, or {@link AcquireRequest#NO_DEADLINE} for waits too long to represent
     * @throws NullPointerException if {@code waitTime} is null
     * @throws IllegalArgumentException if {@code waitTime} is negative
     */
    public static long waitDeadline(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException(String.format("waitTime must not be negative but was %s", waitTime));
        }
        long nanos;
        try {
            nanos = waitTime.toNanos();
        } catch (ArithmeticException e) {
            return AcquireRequest.NO_DEADLINE;
        }
        if (nanos >= Long.MAX_VALUE / 4) {
            return AcquireRequest.NO_DEADLINE;
        }
        long deadline = System.nanoTime() + nanos;
        return deadline == AcquireRequest.NO_DEADLINE ? deadline - 1 : deadline;
    }

    /**
     * Checks that {@code leaseTime} is positive.
     *
     * @param leaseTime the lease to check
     * @return {@code leaseTime}, unchanged
     * @throws NullPointerException if {@code leaseTime} is null
     * @throws IllegalArgumentException if it is zero or negative
     */
    public static Duration positiveLease(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(String.format("leaseTime must be positive but was %s", leaseTime));
        }
        return leaseTime;
    }

    /**
     * Converts a positive {@code leaseTime} to nanoseconds.
     *
     * @param leaseTime the lease; positive
     * @return the lease in nanoseconds, or {@code Long.MAX_VALUE / 4} for leases too long to represent
     * @throws NullPointerException if {@code leaseTime} is null
     * @throws IllegalArgumentException if it is zero or negative
     */
    public static long leaseNanos(Duration leaseTime) {
        try {
            return positiveLease(leaseTime).toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    /**
     * Converts a positive {@code leaseTime} to milliseconds, at least 1 (a sub-millisecond lease is not zero).
     *
     * @param leaseTime the lease; positive
     * @return the lease in milliseconds, or {@code Long.MAX_VALUE / 4} for leases too long to represent
     * @throws NullPointerException if {@code leaseTime} is null
     * @throws IllegalArgumentException if it is zero or negative
     */
    public static long leaseMillis(Duration leaseTime) {
        try {
            return Math.max(1, positiveLease(leaseTime).toMillis());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    /**
     * Checks that an {@code int} argument is positive.
     *
     * @param what the argument's name in the message, such as {@code "permits"}
     * @param value the argument
     * @return {@code value}, unchanged
     * @throws IllegalArgumentException if {@code value} is not positive, naming {@code what}
     */
    public static int positive(String what, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(String.format("%s must be positive but was %d", what, value));
        }
        return value;
    }

    /**
     * Checks that a {@code long} argument is positive.
     *
     * @param what the argument's name in the message, such as {@code "count"}
     * @param value the argument
     * @return {@code value}, unchanged
     * @throws IllegalArgumentException if {@code value} is not positive, naming {@code what}
     */
    public static long positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(String.format("%s must be positive but was %d", what, value));
        }
        return value;
    }

    /**
     * Checks that an {@code int} argument is zero or positive.
     *
     * @param what the argument's name in the message, such as {@code "permits"}
     * @param value the argument
     * @return {@code value}, unchanged
     * @throws IllegalArgumentException if {@code value} is negative, naming {@code what}
     */
    public static int notNegative(String what, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(String.format("%s must not be negative but was %d", what, value));
        }
        return value;
    }
}
