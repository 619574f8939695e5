package io.latchkey.cli.faults;

import java.util.Locale;

/**
 * One line of a fault run's history: what a worker (or the verifier) did or saw, stamped with
 * {@link System#nanoTime()} of the process that wrote it. On Linux every JVM of one host reads the same
 * {@code CLOCK_MONOTONIC}, so stamps of different workers and of the verifier are comparable.
 *
 * <p>The wire form is one line, {@code H <nanos> <actor> <type> <token> <value> [detail]}, with {@code -1} for "no
 * token" or "no value"; lines without the {@code H } prefix (a driver's stray output) are not events.
 *
 * @param nanos the {@code System.nanoTime()} stamp
 * @param actor the worker ({@code w1}, {@code w2}, …) or {@code verifier}
 * @param type what happened
 * @param token the fencing token concerned, or -1
 * @param value the register value read or written, or -1
 * @param detail free text (an error, the fault's target), never {@code null}
 */
record HistoryEvent(long nanos, String actor, Type type, long token, long value, String detail) {

    /** The verifier's own actor name. */
    static final String VERIFIER = "verifier";

    /** What a history line records. */
    enum Type {
        /** A worker process is up and connected. */
        START,
        /** A worker was granted the lock with {@code token}. */
        ACQUIRED,
        /** A worker's bounded wait for the lock ran out. */
        TIMEOUT,
        /** An operation failed with an exception (server down, timeout): {@code detail} names it. */
        ERROR,
        /** The fenced register admitted the holder's token and returned {@code value}. */
        READ,
        /** The fenced register refused the holder's token before reading. */
        READ_REFUSED,
        /** The fenced register accepted the write of {@code value} with {@code token}. */
        WRITE_OK,
        /** The fenced register refused the write: a higher token had been seen. */
        WRITE_REFUSED,
        /** The lease's {@code onLost} listener ran. */
        LOST,
        /** The release succeeded. */
        RELEASED,
        /** The release threw {@code LockLostException}: the holder was told it had lost the lock. */
        RELEASE_LOST,
        /** The release failed otherwise (server unreachable). */
        RELEASE_ERROR,
        /** Verifier: a fault begins ({@code detail}: kind and target). */
        FAULT_START,
        /** Verifier: a fault ends (resume, heal, server back). */
        FAULT_END,
        /** Verifier: a worker process was killed (SIGKILL) or exited. */
        EXITED,
        /**
         * A worker's resource sample in a soak run ({@code detail}: {@code heap=<bytes after a GC> threads=<live>}): kept
         * beside the history, not a step of it.
         */
        SAMPLE
    }

    HistoryEvent {
        detail = detail == null ? "" : detail.replace('\n', ' ').replace('\r', ' ');
    }

    /** An event stamped now. */
    static HistoryEvent now(String actor, Type type, long token, long value, String detail) {
        return new HistoryEvent(System.nanoTime(), actor, type, token, value, detail);
    }

    /** The one-line wire form. */
    String format() {
        return String.format(Locale.ROOT, "H %d %s %s %d %d %s", nanos, actor, type, token, value, detail).stripTrailing();
    }

    /** Parses a wire line, or returns {@code null} for a line that is not an event. */
    static HistoryEvent parse(String line) {
        if (line == null || !line.startsWith("H ")) {
            return null;
        }
        String[] parts = line.split(" ", 7);
        if (parts.length < 6) {
            return null;
        }
        try {
            return new HistoryEvent(Long.parseLong(parts[1]), parts[2], Type.valueOf(parts[3]),
                    Long.parseLong(parts[4]), Long.parseLong(parts[5]), parts.length == 7 ? parts[6] : "");
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
