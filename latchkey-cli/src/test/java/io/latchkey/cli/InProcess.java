package io.latchkey.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import picocli.CommandLine;

/**
 * Runs the {@code latchkey} command in this JVM through the same picocli entry point as {@code main} (converters,
 * error handler, exit codes), capturing stdout, stderr and how long it took.
 */
final class InProcess {

    record Result(int exitCode, String stdout, String stderr, Duration took) {
        @Override
        public String toString() {
            return "exit " + exitCode + " after " + took.toMillis() + " ms\n--- stdout\n" + stdout + "--- stderr\n"
                    + stderr;
        }
    }

    private InProcess() {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        return run(cli, out, err, args);
    }

    static Result run(CommandLine cli, StringWriter out, StringWriter err, String... args) {
        long start = System.nanoTime();
        int code = Main.run(cli, args);
        return new Result(code, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - start));
    }
}
