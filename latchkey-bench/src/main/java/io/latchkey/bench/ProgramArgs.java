package io.latchkey.bench;

/** Command-line lookups shared by the stand-alone bench programs ({@code … --name value …}). */
public final class ProgramArgs {

    private ProgramArgs() {
    }

    /** The value after {@code name} in {@code args}, or {@code fallback} when the option is absent. */
    public static String option(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}
