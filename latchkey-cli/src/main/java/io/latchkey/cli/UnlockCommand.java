package io.latchkey.cli;

import io.latchkey.LockClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code latchkey unlock URI NAME --force}: releases a lock whoever holds it. The holder is not asked; it learns at
 * its next renewal or unlock ({@code LockLostException}), which is why this asks for confirmation.
 */
@Command(name = "unlock", mixinStandardHelpOptions = true,
        description = "Force-release a lock whoever holds it (for stuck locks). The holder learns it lost the lock "
                + "at its next renewal or unlock. Asks for confirmation unless --yes.")
final class UnlockCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = "The backend, e.g. zookeeper://localhost:2181.")
    String uri;

    @Parameters(index = "1", paramLabel = "NAME", description = "The lock's name.")
    String name;

    @Option(names = "--force", description = "Required: this releases a lock someone else holds.")
    boolean force;

    @Option(names = {"-y", "--yes"}, description = "Do not ask for confirmation.")
    boolean yes;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!force) {
            throw new CliException(CliException.USAGE, String.format(
                    "refusing to release '%s' without --force: its holder would lose it while it works", name));
        }
        Connector.checkScheme(uri);
        Connector.checkName(name);
        if (!yes) {
            err.printf("Force-release lock '%s' on %s? Its holder will lose it. [y/N] ", name, Connector.describe(uri));
            err.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, Charset.defaultCharset()));
            String answer = in.readLine();
            if (answer == null || !(answer.strip().toLowerCase(Locale.ROOT).equals("y")
                    || answer.strip().toLowerCase(Locale.ROOT).equals("yes"))) {
                err.println("not released (answer y to confirm, or pass --yes)");
                return CliException.UNAVAILABLE;
            }
        }
        try (LockClient client = Connector.open(uri, global.timeout)) {
            boolean wasHeld;
            try {
                wasHeld = client.lock(name).forceUnlock();
            } catch (RuntimeException e) {
                throw Connector.translate(uri, global.timeout, e);
            }
            out.println(wasHeld ? String.format("released '%s' on %s", name, Connector.describe(uri))
                    : String.format("'%s' was not held on %s", name, Connector.describe(uri)));
            return 0;
        }
    }
}
