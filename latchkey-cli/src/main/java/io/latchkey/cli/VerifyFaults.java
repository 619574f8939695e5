package io.latchkey.cli;

import io.latchkey.cli.faults.FaultKind;
import io.latchkey.cli.faults.FaultRun;
import java.time.Duration;

/** {@code verify --faults}: hands the options to {@link FaultRun} and turns its errors into the CLI's exit codes. */
final class VerifyFaults {

    /** The lease of a fault run unless {@code --lease} is given: short, so that a run takes a minute. */
    static final Duration DEFAULT_LEASE = Duration.ofSeconds(2);

    private VerifyFaults() {
    }

    /** The faults named by {@code --fault} (none when it is not given: then every fault runs). */
    static java.util.Set<FaultKind> only(java.util.List<String> names) {
        java.util.Set<FaultKind> only = java.util.EnumSet.noneOf(FaultKind.class);
        if (names != null) {
            for (String n : names) {
                only.add(FaultKind.ofCliName(n));
            }
        }
        return only;
    }

    static int run(VerifyCommand c) throws InterruptedException {
        if (!c.faults) {
            throw new CliException(CliException.USAGE,
                    "--embedded, --fault, --soak, --resource, --register and --report go with --faults");
        }
        boolean leaseGiven = c.spec.commandLine().getParseResult().hasMatchedOption("--lease");
        boolean durationGiven = c.spec.commandLine().getParseResult().hasMatchedOption("--duration");
        FaultRun.Options options;
        try {
            if (c.uri != null) {
                Connector.checkScheme(c.uri);
            }
            String resource = c.resource;
            if (c.register != null && !c.register.equals("database")) {
                if (!c.register.equals(FaultRun.STORE_REGISTER)) {
                    throw new IllegalArgumentException(String.format(
                            "--register must be 'database' or 'store' but was '%s'", c.register));
                }
                if (c.resource != null) {
                    throw new IllegalArgumentException("--register store keeps the register in the lock's own "
                            + "server; it takes no --resource");
                }
                resource = FaultRun.STORE_REGISTER;
            }
            options = new FaultRun.Options(c.uri, c.embedded, resource, c.workers,
                    leaseGiven ? c.lease : DEFAULT_LEASE, durationGiven ? c.duration : Duration.ZERO, c.report,
                    java.util.Set.of(), only(c.onlyFaults), c.soak);
        } catch (IllegalArgumentException e) {
            throw new CliException(CliException.USAGE, e.getMessage(), e);
        }
        try {
            FaultRun.Result result = FaultRun.run(options, c.spec.commandLine().getOut());
            return result.passed() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            throw new CliException(CliException.USAGE, e.getMessage(), e);
        } catch (IllegalStateException | java.io.UncheckedIOException e) {
            throw new CliException(CliException.UNAVAILABLE, "the fault run could not run: " + e.getMessage(), e);
        }
    }
}
