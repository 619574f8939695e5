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
     * The {@link System#nanoTime()} deadline of a wait of {@code waitTime}: {@link AcquireRequest#NO_DEADLINE}
     * for waits too long to represent.
     *
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
     * {@code leaseTime} after checking it is positive.
     *
     * @throws IllegalArgumentException if it is zero or negative
     */
    public static Duration positiveLease(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(String.format("leaseTime must be positive but was %s", leaseTime));
        }
        return leaseTime;
    }

    /** A positive {@code leaseTime} in nanoseconds, saturated for leases too long to represent. */
    public static long leaseNanos(Duration leaseTime) {
        try {
            return positiveLease(leaseTime).toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    /** A positive {@code leaseTime} in milliseconds (at least 1), saturated for leases too long to represent. */
    public static long leaseMillis(Duration leaseTime) {
        try {
            return Math.max(1, positiveLease(leaseTime).toMillis());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    /** @throws IllegalArgumentException if {@code value} is not positive, naming {@code what} */
    public static int positive(String what, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(String.format("%s must be positive but was %d", what, value));
        }
        return value;
    }

    /** @throws IllegalArgumentException if {@code value} is not positive, naming {@code what} */
    public static long positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(String.format("%s must be positive but was %d", what, value));
        }
        return value;
    }

    /** @throws IllegalArgumentException if {@code value} is negative, naming {@code what} */
    public static int notNegative(String what, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(String.format("%s must not be negative but was %d", what, value));
        }
        return value;
    }
}
