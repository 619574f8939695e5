package io.latchkey.core.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by every primitive, with messages that state the rule and the rejected value. */
final class Checks {

    static final int MAX_NAME_LENGTH = 512;

    private Checks() {
    }

    static String name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(String.format(
                    "lock name must be 1 to %d characters but had %d", MAX_NAME_LENGTH, name.length()));
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(String.format(
                        "lock name must not contain control characters but had U+%04X at index %d", (int) c, i));
            }
        }
        return name;
    }

    /** The lease in milliseconds, rounded up so that a sub-millisecond lease is not silently zero. */
    static long leaseMillis(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(String.format("leaseTime must be positive but was %s", leaseTime));
        }
        long millis = saturatedMillis(leaseTime);
        if (Duration.ofMillis(millis).compareTo(leaseTime) < 0) {
            millis++;
        }
        return millis;
    }

    static long waitNanos(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException(String.format("waitTime must not be negative but was %s", waitTime));
        }
        return saturatedNanos(waitTime);
    }

    /**
     * {@link java.util.concurrent.locks.Lock#tryLock(long, java.util.concurrent.TimeUnit)} promises that a time
     * at or below zero means a single attempt, so code passing a computed remaining time keeps working; only
     * the {@code Duration} forms reject negative waits.
     */
    static long waitNanos(long time, java.util.concurrent.TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return Math.max(0, unit.toNanos(time));
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
