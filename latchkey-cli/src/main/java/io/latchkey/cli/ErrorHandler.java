package io.latchkey.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns failures into one masked line on stderr and an exit code. A stack trace (masked as well) only with
 * {@code --verbose}, because users of a CLI need the reason, not the frames.
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        boolean verbose = parseResult.hasMatchedOption("--verbose") || hasVerbose(parseResult);
        int code;
        String message;
        if (ex instanceof CliException) {
            code = ((CliException) ex).exitCode();
            message = ex.getMessage();
        } else if (ex instanceof IllegalArgumentException) {
            code = CliException.USAGE;
            message = ex.getMessage();
        } else {
            code = CliException.UNAVAILABLE;
            message = ex.getClass().getSimpleName() + (ex.getMessage() == null ? "" : ": " + ex.getMessage());
        }
        PrintWriter err = cmd.getErr();
        err.println("latchkey: " + Secrets.mask(Connector.firstLine(String.valueOf(message))));
        if (verbose) {
            StringWriter trace = new StringWriter();
            ex.printStackTrace(new PrintWriter(trace));
            err.print(Secrets.mask(trace.toString()));
        }
        err.flush();
        return code;
    }

    private static boolean hasVerbose(ParseResult parseResult) {
        for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        String help = "'" + cmd.getCommandSpec().qualifiedName() + " --help'";
        if (ex instanceof UnmatchedArgumentException) {
            err.println("latchkey: " + Secrets.mask(ex.getMessage()));
            UnmatchedArgumentException.printSuggestions((UnmatchedArgumentException) ex, err);
            err.println("Try " + help + " for more information.");
        } else {
            // one line: what is wrong, and where the options are described
            err.println("latchkey: " + Secrets.mask(Connector.firstLine(String.valueOf(ex.getMessage())))
                    + " (see " + help + ")");
        }
        err.flush();
        return CliException.USAGE;
    }
}
