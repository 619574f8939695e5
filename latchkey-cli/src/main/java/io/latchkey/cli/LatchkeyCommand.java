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
                VerifyCommand.class, LeaderCommand.class, ConsoleCommand.class, HelpCommand.class},
        footer = {"", "Backends (URI schemes):",
                "  mem://NAME                         in-memory, this process only",
                "  redis://[[user:]password@]host:port[/db]      rediss:// with TLS",
                "  redis-sentinel://host:port[,host:port]/master  rediss-sentinel:// with TLS",
                "  redis-cluster://host:port[,host:port]",
                "  valkey://, valkeys://, valkey-sentinel://, valkeys-sentinel://,",
                "  valkey-cluster://                  the same as redis…, for Valkey",
                "  zookeeper://[user:password@]host:port[,host:port][/chroot]",
                "  etcd://[user:password@]host:port[,host:port]  etcds://…[?ca=F&cert=F&key=F] TLS",
                "  jdbc:postgresql://host:port/db    jdbc:mariadb://host:port/db",
                "  jdbc:mysql://host:port/db         jdbc:h2:file:/path",
                "  file:///absolute/dir               OS file locks, processes of this host",
                "Durations take a unit: 250ms, 5s, 1.5s, 2m (a bare number is refused).",
                "Exit codes: 0 ok, 1 backend unreachable or failed, 2 bad arguments,",
                "3 not supported by the backend, 130 interrupted (Ctrl-C).",
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
