package io.latchkey.core.internal;

import io.latchkey.ClientOptions;
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
        int lone = loneSurrogate(name);
        if (lone >= 0) {
            // Backends encode names as UTF-8, which turns every lone surrogate into '?': all would share a lock.
            throw new IllegalArgumentException(String.format(
                    "lock name must be well-formed UTF-16 but had a lone surrogate U+%04X at index %d",
                    (int) name.charAt(lone), lone));
        }
        return name;
    }

    static int loneSurrogate(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The lease in milliseconds, rounded up so that a sub-millisecond lease is not silently zero; at most
     * {@link ClientOptions#MAX_LEASE_TIME}, which every backend can add to its server's clock without overflow.
     */
    static long leaseMillis(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException(String.format("leaseTime must be positive but was %s", leaseTime));
        }
        if (leaseTime.compareTo(ClientOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException(String.format(
                    "leaseTime must be at most %s (ClientOptions.MAX_LEASE_TIME, 36500 days) but was %s",
                    ClientOptions.MAX_LEASE_TIME, leaseTime));
        }
        long millis = saturatedMillis(leaseTime);
        if (Duration.ofMillis(millis).compareTo(leaseTime) < 0) {
            millis++;
        }
        return millis;
    }

    /**
     * The wait in nanoseconds: a negative wait is zero (a single attempt), as every timed method of
     * {@code java.util.concurrent} treats it, so code passing a computed remaining time keeps working; a wait too
     * long to represent saturates (forever).
     */
    static long waitNanos(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            return 0;
        }
        return saturatedNanos(waitTime);
    }

    /**
     * {@link java.util.concurrent.locks.Lock#tryLock(long, java.util.concurrent.TimeUnit)} promises that a time
     * at or below zero means a single attempt; the {@code Duration} forms do the same.
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
