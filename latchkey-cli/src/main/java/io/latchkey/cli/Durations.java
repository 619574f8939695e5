package io.latchkey.cli;

import java.time.Duration;
import java.util.Locale;

/** Parses and prints durations the way people type them: {@code 500ms}, {@code 2s}, {@code 1m}. */
final class Durations {

    private Durations() {
    }

    /**
     * A duration with its unit: {@code 250ms}, {@code 5s}, {@code 1.5s}, {@code 2m}, {@code 1h}. A bare number is
     * refused rather than guessed (is {@code 5} five seconds or five milliseconds?).
     *
     * @throws IllegalArgumentException naming the text and giving examples
     */
    static Duration parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).strip()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(number(t, 1)) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(number(t, 1)) * 60_000));
            }
            if (t.endsWith("h")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(number(t, 1)) * 3_600_000));
            }
            Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format(
                    "'%s' is not a duration: write it with a unit, e.g. 250ms, 5s, 1.5s, 2m", text));
        }
        throw new IllegalArgumentException(String.format(
                "'%s' has no unit: write e.g. %sms or %ss (250ms, 5s, 2m)", text, t, t));
    }

    private static String number(String t, int unitLength) {
        String n = t.substring(0, t.length() - unitLength).strip();
        // Double.parseDouble accepts "NaN", "Infinity", hex and a trailing 'd' or 'f': none of them is a duration.
        if (!n.matches("\\d+(\\.\\d+)?|\\.\\d+")) {
            throw new NumberFormatException(n);
        }
        return n;
    }

    /** The picocli converter: the same rules, reported as a usage error (exit 2) by every command. */
    static Duration convert(String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.TypeConversionException(e.getMessage());
        }
    }

    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 60_000 == 0 && ms >= 60_000) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    /** A latency in nanoseconds, with a precision that fits a table column: {@code 85 us}, {@code 12.4 ms}. */
    static String latency(long nanos) {
        if (nanos < 0) {
            return "-";
        }
        if (nanos < 1_000_000) {
            // "us" rather than the micro sign: terminals and logs with a non-UTF-8 locale print it as '?'.
            return String.format(Locale.ROOT, "%d us", Math.round(nanos / 1000.0));
        }
        double ms = nanos / 1_000_000.0;
        if (ms < 10) {
            return String.format(Locale.ROOT, "%.2f ms", ms);
        }
        if (ms < 1000) {
            return String.format(Locale.ROOT, "%.1f ms", ms);
        }
        return String.format(Locale.ROOT, "%.2f s", ms / 1000);
    }
}
