package io.latchkey.cli;

/**
 * A failure the user can act on: printed as one line (masked) with no stack trace unless {@code --verbose}, and
 * turned into the process exit code.
 */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Bad arguments: an unknown scheme, a malformed URI, a value out of range. */
    static final int USAGE = 2;
    /** The backend could not be reached or refused the operation. */
    static final int UNAVAILABLE = 1;
    /** The backend does not offer what was asked (e.g. inspection). */
    static final int UNSUPPORTED = 3;

    private final int exitCode;

    CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    CliException(int exitCode, String message) {
        this(exitCode, message, null);
    }

    int exitCode() {
        return exitCode;
    }
}
