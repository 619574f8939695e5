package io.latchkey.cli;

import io.latchkey.LockClient;
import io.latchkey.console.LockConsole;
import io.latchkey.spi.LockInspector;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code latchkey console URI}: a web page for operators showing who holds which lock and since when, a timeline
 * of the last minutes, and force-unlock with an audit log. Listens on 127.0.0.1 unless {@code --bind}; any other
 * address requires an access token.
 */
@Command(name = "console", mixinStandardHelpOptions = true,
        description = "Serve a live web page of the locks held in a backend: holder, token, held since, lease "
                + "left, waiters; semaphores, latches and elections; a timeline of the last minutes; and "
                + "force-unlock with confirmation and an audit log. Listens on 127.0.0.1 unless --bind; a "
                + "non-loopback address requires --token (or LATCHKEY_CONSOLE_TOKEN). Runs until Ctrl-C.")
final class ConsoleCommand implements Callable<Integer> {

    /** The environment variable that can hold the access token instead of {@code --token}. */
    static final String TOKEN_ENV = "LATCHKEY_CONSOLE_TOKEN";

    private static final Pattern TOKEN = Pattern.compile("(?:([A-Za-z0-9._-]{1,64})=)?([A-Za-z0-9._~-]{16,256})");

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = "The backend, e.g. redis://localhost:6379.")
    String uri;

    @Option(names = "--port", paramLabel = "N", defaultValue = "7070",
            description = "The port to listen on (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}). Any non-loopback address "
                    + "requires --token.")
    String bind;

    @Option(names = "--token", paramLabel = "[LABEL=]TOKEN",
            description = "An access token (at least 16 of A-Z a-z 0-9 . _ ~ -), repeatable; LABEL names its "
                    + "holder in the audit log (default: token). Also from the " + TOKEN_ENV + " environment "
                    + "variable. With a token every request needs it: open the "
                    + "page once with ?token=TOKEN (it becomes a cookie) or send Authorization: Bearer TOKEN.")
    List<String> tokens = new ArrayList<>();

    @Option(names = "--pattern", paramLabel = "GLOB", defaultValue = "*",
            description = "Only locks whose names match: * any run, ? one character (default: all).")
    String pattern;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "500ms",
            description = "How often the backend is polled (default: ${DEFAULT-VALUE}), from 50ms to 1m.")
    Duration interval;

    @Option(names = "--audit-file", paramLabel = "FILE",
            description = "Append every force-unlock to this file as well (one tab-separated line each).")
    Path auditFile;

    /** Tests read the address and stop the console through this; the command line never sets it. */
    CountDownLatch stop = new CountDownLatch(1);

    volatile InetSocketAddress listening;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        Config config = check();
        Connector.checkScheme(uri);
        try {
            if (auditFile != null) {
                Files.write(auditFile, new byte[0], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            throw new CliException(CliException.USAGE, String.format(
                    "cannot append to the audit file %s: %s", auditFile, e.getMessage()));
        }
        String backend = Connector.describe(uri).strip();
        if (backend.endsWith(" at")) {
            backend = backend + " " + Secrets.mask(uri); // a lock directory has no host to name
        }
        try (LockClient client = Connector.open(uri, global.timeout);
             LockConsole console = console(client, backend);
             ConsoleServer server = bind(config, console)) {
            console.start();
            server.start();
            listening = server.address();
            String host = config.address().getAddress().isAnyLocalAddress() ? "<this host>"
                    : hostForUrl(config.address().getAddress());
            out.printf("latchkey console for %s on http://%s:%d/%s%n", backend, host,
                    listening.getPort(), config.tokens().isEmpty() ? "" : "?token=<your token> (once; then a cookie)");
            out.println("Ctrl-C stops it");
            out.flush();
            Thread hook = new Thread(stop::countDown, "latchkey-console-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                stop.await();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM is exiting: the hook has run
                }
            }
            return 0;
        }
    }

    record Config(InetSocketAddress address, Map<String, String> tokens) {
    }

    /** Checks the options, before anything connects or listens. */
    Config check() {
        if (port < 0 || port > 65535) {
            throw new CliException(CliException.USAGE, String.format("--port must be 0 to 65535 but was %d", port));
        }
        if (interval.compareTo(Duration.ofMillis(50)) < 0 || interval.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new CliException(CliException.USAGE,
                    String.format("--interval must be from 50ms to 1m but was %s", Durations.format(interval)));
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new CliException(CliException.USAGE, String.format("--bind %s is not an address of this host: %s",
                    bind, e.getMessage()));
        }
        List<String> given = new ArrayList<>(tokens);
        String env = System.getenv(TOKEN_ENV);
        if (given.isEmpty() && env != null && !env.isBlank()) {
            given.add(env.strip());
        }
        Map<String, String> bySecret = new LinkedHashMap<>();
        for (String t : given) {
            var m = TOKEN.matcher(t);
            if (!m.matches()) {
                throw new CliException(CliException.USAGE, "an access token must be [LABEL=]TOKEN with a TOKEN of "
                        + "16 to 256 of A-Z a-z 0-9 . _ ~ - (a LABEL of up to 64 of A-Z a-z 0-9 . _ -); the one "
                        + "given has " + t.length() + " characters");
            }
            bySecret.put(m.group(2), m.group(1) == null ? "token" : m.group(1));
        }
        if (!address.isLoopbackAddress() && bySecret.isEmpty()) {
            throw new CliException(CliException.USAGE, String.format("refusing to listen on %s:%d without an access "
                    + "token: anyone who reaches that address could see every lock and force-unlock them; pass "
                    + "--token TOKEN (or set %s), or leave out --bind to listen on 127.0.0.1 only",
                    bind, port, TOKEN_ENV));
        }
        return new Config(new InetSocketAddress(address, port), bySecret);
    }

    private LockConsole console(LockClient client, String backend) {
        if (!(client instanceof LockInspector)) {
            throw new CliException(CliException.UNSUPPORTED, String.format(
                    "this backend does not support inspection (%s), which the console reads the locks from",
                    backend));
        }
        return LockConsole.builder(client).backend(backend).pattern(pattern).interval(interval)
                .auditFile(auditFile).mask(Secrets::mask).maxStreams(ConsoleServer.STREAMS).build();
    }

    private ConsoleServer bind(Config config, LockConsole console) {
        try {
            return new ConsoleServer(config.address(), console,
                    new ConsoleAccess(config.tokens(), config.address().getAddress().isLoopbackAddress()));
        } catch (BindException e) {
            throw new CliException(CliException.UNAVAILABLE, String.format("cannot listen on %s:%d: %s (pass "
                    + "another --port, or 0 for a free one)", bind, port, e.getMessage()));
        } catch (IOException e) {
            throw new CliException(CliException.UNAVAILABLE, String.format("cannot listen on %s:%d: %s", bind, port,
                    e.getMessage()));
        }
    }

    private static String hostForUrl(InetAddress a) {
        String h = a.getHostAddress();
        return h.contains(":") ? "[" + h + "]" : h;
    }
}
