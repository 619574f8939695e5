package io.latchkey.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/** Options every subcommand takes. */
final class GlobalOptions {

    @Option(names = {"-v", "--verbose"}, description = "Print stack traces and driver logs.")
    boolean verbose;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5s",
            description = "How long to wait for a backend to answer (default: ${DEFAULT-VALUE}), e.g. 500ms, 5s.")
    Duration timeout;
}
