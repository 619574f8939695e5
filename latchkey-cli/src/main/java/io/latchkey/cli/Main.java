package io.latchkey.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import picocli.CommandLine;

/** Entry point of the {@code latchkey} command. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command and returns its exit code (0 ok, 1 backend failure, 2 bad arguments, 3 unsupported). */
    static int run(String... args) {
        boolean verbose = Arrays.asList(args).contains("--verbose") || Arrays.asList(args).contains("-v");
        // Before any logger exists: the drivers and the embedded servers log at INFO, which would bury the table.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "off");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        for (String arg : args) {
            Secrets.register(arg);
        }
        CommandLine cli = commandLine();
        try {
            return cli.execute(args);
        } finally {
            cli.getOut().flush();
            cli.getErr().flush();
        }
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new LatchkeyCommand());
        cli.registerConverter(Duration.class, Durations::parse);
        cli.setExecutionExceptionHandler(new ErrorHandler());
        cli.setParameterExceptionHandler(new ErrorHandler());
        cli.setOut(new PrintWriter(System.out, true));
        cli.setErr(new PrintWriter(System.err, true));
        return cli;
    }
}
