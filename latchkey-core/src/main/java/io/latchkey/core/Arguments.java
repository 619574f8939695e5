package io.latchkey.core;

/**
 * Argument checks shared by the engine's synchronizers (semaphores, latches), so that each rejects bad input with
 * the same {@link IllegalArgumentException} message ("permits must be positive but was 0"), which the TCK checks.
 */
public final class Arguments {

    private Arguments() {
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
