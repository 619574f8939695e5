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
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** {@link #run(String...)} printing to {@code out} and {@code err} (tests run the command in-process). */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(commandLine(out, err), args);
    }

    /** Runs {@code args} on {@code cli} (from {@link #commandLine}), after the process-wide logging setup. */
    static int run(CommandLine cli, String... args) {
        boolean verbose = Arrays.asList(args).contains("--verbose") || Arrays.asList(args).contains("-v");
        // Before any logger exists: the drivers and the embedded servers log at INFO, which would bury the table.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "off");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        if (!verbose) {
            // gRPC (etcd) logs through java.util.logging, straight to stderr
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
        }
        for (String arg : args) {
            Secrets.register(arg);
        }
        try {
            return cli.execute(args);
        } finally {
            cli.getOut().flush();
            cli.getErr().flush();
        }
    }

    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new LatchkeyCommand());
        cli.registerConverter(Duration.class, Durations::convert);
        cli.setExecutionExceptionHandler(new ErrorHandler());
        cli.setParameterExceptionHandler(new ErrorHandler());
        cli.setOut(out);
        cli.setErr(err);
        return cli;
    }
}
