package io.latchkey.integration;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations in annotation attributes: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d},
 * {@code PT10M}. A number without a unit is an error, not milliseconds: {@code lockAtMostFor = "10"} would otherwise
 * hold a lock for 10 ms or 10 s depending on who reads it.
 */
public final class DurationText {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ns|us|ms|s|m|h|d)");

    private DurationText() {
    }

    /**
     * Parses {@code text}; {@code what} names the attribute in the error (a number without a unit is one).
     *
     * @param what the attribute and method, for the message
     * @param text the duration
     * @return the duration, never negative
     * @throws IllegalArgumentException if {@code text} is not a duration with a unit
     */
    public static Duration parse(String what, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(t);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                switch (m.group(2)) {
                    case "ns": return Duration.ofNanos(n);
                    case "us": return Duration.ofNanos(Math.multiplyExact(n, 1000L));
                    case "ms": return Duration.ofMillis(n);
                    case "s": return Duration.ofSeconds(n);
                    case "m": return Duration.ofMinutes(n);
                    case "h": return Duration.ofHours(n);
                    default: return Duration.ofDays(n);
                }
            }
            if (t.startsWith("p")) {
                Duration d = Duration.parse(t.toUpperCase(Locale.ROOT));
                if (d.isNegative()) {
                    throw new IllegalArgumentException(String.format("%s must not be negative but was '%s'", what,
                            text));
                }
                return d;
            }
        } catch (ArithmeticException | NumberFormatException | DateTimeParseException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException(String.format(
                "%s must be a duration with a unit such as 500ms, 30s, 10m or PT10M but was '%s'", what, text));
    }
}
