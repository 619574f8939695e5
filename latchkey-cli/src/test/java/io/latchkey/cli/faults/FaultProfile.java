package io.latchkey.cli.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Assumptions;

/**
 * Which fault runs the build makes. <b>Bounded</b> by default (what {@code ./test.sh} runs: every backend and every
 * fault kind at least once, so that the whole build stays within CI's 45 minutes on two cores); the <b>full</b>
 * matrix with {@code -Dlatchkey.faults=full} ({@code ./test.sh --full}) or {@code LATCHKEY_FULL=1}. A run the
 * bounded profile leaves out is never silent: it is reported as a skipped test whose reason names what covers it and
 * how to run it, and listed in {@code target/faults/bounded-profile.txt}, which {@code ./test.sh} prints at its end.
 */
final class FaultProfile {

    /** How to run the full matrix. */
    static final String FULL = "./test.sh --full, or ./mvnw -B -ntp verify -pl latchkey-cli -am -Dlatchkey.faults=full";

    private static final Path LIST = Path.of("target", "faults", "bounded-profile.txt");

    private FaultProfile() {
    }

    /** Whether the full matrix runs. */
    static boolean full() {
        return "full".equals(System.getProperty("latchkey.faults")) || "1".equals(System.getenv("LATCHKEY_FULL"));
    }

    /**
     * In the bounded profile: records {@code run} as left out and aborts the calling test (skipped, with the reason);
     * in the full profile nothing.
     *
     * @param coveredBy where the bounded profile still runs what it checks
     */
    static void leftOut(String run, String coveredBy) {
        if (full()) {
            return;
        }
        String line = "bounded fault profile: left out " + run + " (covered by " + coveredBy + "); run it with "
                + FULL;
        note(line);
        Assumptions.abort(line);
    }

    /** In the bounded profile: records what a run that does take place leaves out of its schedule. */
    static void trimmed(String run, String leftOut) {
        if (!full()) {
            note("bounded fault profile: " + run + " without " + leftOut + "; the full schedule with " + FULL);
        }
    }

    private static synchronized void note(String line) {
        System.out.println(line);
        try {
            Files.createDirectories(LIST.getParent());
            Files.writeString(LIST, line + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
