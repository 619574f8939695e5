package io.latchkey.cli;

import java.time.Duration;
import java.util.Locale;

/** Parses and prints durations the way people type them: {@code 500ms}, {@code 2s}, {@code 1m}. */
final class Durations {

    private Durations() {
    }

    static Duration parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
            }
            return Duration.ofMillis(Long.parseLong(t));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format(
                    "duration must look like 500ms, 2s or 1m but was '%s'", text));
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
