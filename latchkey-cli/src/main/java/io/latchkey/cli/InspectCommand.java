package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code latchkey inspect URI [PATTERN]}: the locks held now. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "List the locks held in a backend: name, kind (lock, fair-lock, read-lock, write-lock, "
                + "permit, semaphore, latch), owner, hold count, fencing token, remaining lease, detail and "
                + "waiters (where the backend knows them).")
final class InspectCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = "The backend, e.g. redis://localhost:6379.")
    String uri;

    @Parameters(index = "1", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "Glob over lock names: * any run, ? one character (default: all).")
    String pattern;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = Connector.open(uri, global.timeout)) {
            if (!(client instanceof LockInspector)) {
                throw new CliException(CliException.UNSUPPORTED, String.format(
                        "this backend does not support inspection (%s); 'latchkey unlock' still works by name",
                        Connector.describe(uri)));
            }
            List<LockInfo> locks;
            try {
                locks = ((LockInspector) client).list(pattern);
            } catch (RuntimeException e) {
                throw Connector.translate(uri, global.timeout, e);
            }
            if (locks.isEmpty()) {
                out.printf("no held locks match '%s' on %s%n", pattern, Connector.describe(uri));
                return 0;
            }
            TextTable table = new TextTable("name", "kind", "owner", "holds", "token", "lease left", "detail",
                    "waiters").alignRight(3, 4, 5, 7);
            for (LockInfo lock : locks) {
                table.row(lock.name(), lock.kind(), Secrets.mask(lock.owner()), String.valueOf(lock.holdCount()),
                        lock.fencingToken().isPresent() ? String.valueOf(lock.fencingToken().getAsLong()) : "-",
                        lock.remainingLease().map(d -> Durations.latency(d.toNanos())).orElse("-"),
                        lock.detail().isEmpty() ? "-" : lock.detail(),
                        lock.waiters().isPresent() ? String.valueOf(lock.waiters().getAsInt()) : "-");
            }
            out.print(table.render());
            out.printf("%d held lock%s on %s%n", locks.size(), locks.size() == 1 ? "" : "s", Connector.describe(uri));
            return 0;
        }
    }
}
