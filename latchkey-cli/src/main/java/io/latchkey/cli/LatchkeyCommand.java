package io.latchkey.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.HelpCommand;

/** The {@code latchkey} command and its subcommands. */
@Command(name = "latchkey", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Distributed locks from the command line: a flash-sale demo, a benchmark, and tools to "
                + "inspect and release locks, and a safety verifier for a backend.",
        subcommands = {DemoCommand.class, BenchCommand.class, InspectCommand.class, UnlockCommand.class,
                VerifyCommand.class, LeaderCommand.class, HelpCommand.class},
        footer = {"", "Backends: mem://NAME, redis://[[user:]password@]host:port, rediss://…, zookeeper://host:port[/chroot],",
                "jdbc:h2:…, jdbc:postgresql://…, jdbc:mariadb://… (as far as the backend modules are present).",
                "Exit codes: 0 ok, 1 backend unreachable or failed, 2 bad arguments, 3 not supported by the backend.",
                "", "Checking a backend: 'latchkey verify URI' runs several clients against it and",
                "checks mutual exclusion, fencing-token order, lease expiry, the lost signal",
                "after a force-unlock and interrupted waiters. It prints PASS/FAIL/SKIP with",
                "evidence per check and exits 1 if any failed. It only uses (and releases) lock",
                "names under --names-prefix (default latchkey-verify-<random>)."})
final class LatchkeyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** {@code latchkey} alone: the list of commands, as a reminder rather than an error message. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CliException.USAGE;
    }
}
