package io.latchkey.cli;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.core.ConnectFailures;
import io.latchkey.spi.LockClientProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens {@link LockClient}s for the command line with the errors a user can read: a URI without a scheme gets the
 * URI it probably meant, an unknown scheme the supported ones, a bad port a usage error, all before any connect; a
 * server that cannot be reached ("cannot reach"), that was reached but refused ("reached …, but it refused: reason"),
 * or that was reached but never answered as the expected server, one line each within the timeout plus
 * {@link #GRACE}.
 */
final class Connector {

    /** A lock whose state is queried to check the connection; nothing is created under it. */
    private static final String PROBE_LOCK = "latchkey-cli:probe";

    private Connector() {
    }

    /** The URI prefixes of every backend on the class path, in ServiceLoader order. */
    static List<String> supportedPrefixes() {
        List<String> prefixes = new ArrayList<>();
        for (LockClientProvider provider : ServiceLoader.load(LockClientProvider.class, Connector.class.getClassLoader())) {
            prefixes.addAll(provider.uriPrefixes());
        }
        return prefixes;
    }

    /** Whether a backend on the class path accepts {@code uri}. */
    static boolean isSupported(String uri) {
        for (String prefix : supportedPrefixes()) {
            if (uri.regionMatches(true, 0, prefix, 0, prefix.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks {@code uri} as far as it can be without a network: a supported scheme (or the URI meant by a bare
     * {@code host:port}), and hosts with numeric ports. Every failure is a usage error.
     */
    static void checkScheme(String uri) {
        Secrets.register(uri);
        if (!isSupported(uri)) {
            List<String> known = supportedPrefixes();
            String suggestion = Endpoints.suggestion(uri);
            if (suggestion != null) {
                throw new CliException(CliException.USAGE, String.format(
                        "'%s' has no URI scheme: did you mean %s? (supported schemes: %s)", Secrets.mask(uri),
                        Secrets.mask(suggestion), String.join(", ", known)));
            }
            String scheme = scheme(uri);
            throw new CliException(CliException.USAGE, String.format(
                    "unsupported URI scheme '%s' in %s; supported schemes: %s", scheme, Secrets.mask(uri),
                    known.isEmpty() ? "none (no backend module on the class path)" : String.join(", ", known)));
        }
        Endpoints.of(uri);
    }

    /** Fails with a usage error unless {@code name} is a lock name every backend accepts. */
    static String checkName(String name) {
        try {
            return io.latchkey.core.internal.LockEngine.checkName(name);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new CliException(CliException.USAGE, e.getMessage(), e);
        }
    }

    /**
     * Connects to {@code uri} and makes one remote query, all within {@code timeout} (plus {@link #GRACE} for a
     * cold JVM's class loading), whatever is at the other end: nothing, a server of another kind that says nothing,
     * or one that answers garbage.
     *
     * <p>First a plain TCP connect to the URI's hosts tells "cannot reach" (refused, unknown host, no route) from
     * "reached". Then the driver connects on a daemon thread under the same deadline, because drivers retry for
     * longer than their own timeouts (Curator's connection loop, jetcd's gRPC reconnects). A client that connects
     * after the deadline is closed, not leaked.
     */
    static LockClient open(String uri, Duration timeout) {
        return open(uri, timeout, ClientOptions.builder());
    }

    /** {@link #open(String, Duration)} with further options (e.g. a short watchdog for {@code verify}). */
    static LockClient open(String uri, Duration timeout, ClientOptions.Builder optionsBuilder) {
        long deadline = System.nanoTime() + timeout.toNanos() + GRACE.toNanos();
        checkScheme(uri);
        List<Endpoints.HostPort> hosts = Endpoints.of(uri);
        if (!hosts.isEmpty()) {
            probe(uri, hosts, timeout);
        }
        ClientOptions options = optionsBuilder.operationTimeout(timeout).build();
        CompletableFuture<LockClient> task = new CompletableFuture<>();
        Thread connecting = new Thread(() -> {
            try {
                LockClient client = LockClient.connect(withDriverTimeouts(uri, timeout), options);
                try {
                    client.lock(PROBE_LOCK).isLocked();
                } catch (RuntimeException e) {
                    client.close();
                    throw e;
                }
                if (!task.complete(client)) {
                    client.close(); // the caller gave up meanwhile
                }
            } catch (Throwable e) {
                task.completeExceptionally(e);
            }
        }, "latchkey-cli-connect");
        connecting.setDaemon(true);
        connecting.start();
        try {
            return await(task, timeout, deadline);
        } catch (TimeoutException e) {
            task.completeExceptionally(e);
            connecting.interrupt();
            throw silent(uri, hosts, timeout, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.completeExceptionally(e);
            connecting.interrupt();
            throw new CliException(CliException.UNAVAILABLE, "interrupted while connecting to " + Secrets.mask(uri));
        } catch (ExecutionException e) {
            throw translate(uri, timeout, e.getCause(), !hosts.isEmpty());
        }
    }

    /**
     * {@code uri} with the PostgreSQL driver's {@code loginTimeout} set to the timeout (whole seconds, rounded up)
     * unless the URI sets it. Without it the driver's connect has no bound of its own: against a server of another
     * kind its TLS request waits for a reply, times out, and the driver tries again without TLS, loading classes that
     * look like a cold JVM's warm-up to {@link #await} (11.3–11.9 s with a 5 s timeout). With it the driver gives up
     * within the timeout.
     */
    static String withDriverTimeouts(String uri, Duration timeout) {
        if (!uri.regionMatches(true, 0, "jdbc:postgresql:", 0, "jdbc:postgresql:".length())
                || uri.toLowerCase(Locale.ROOT).contains("logintimeout=")) {
            return uri;
        }
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        return uri + (uri.indexOf('?') >= 0 ? "&" : "?") + "loginTimeout=" + seconds;
    }

    /** Room beyond the timeout for the answer to reach the user. */
    static final Duration GRACE = Duration.ofMillis(250);

    /** The most a cold JVM's class loading may add to the deadline. */
    static final Duration MAX_WARM_UP = Duration.ofSeconds(15);

    /**
     * Waits for the connect until {@code deadline}, moved on while this JVM is still loading the driver's classes:
     * the time a server has to answer starts when the client is ready to ask. A cold JVM on a busy 2-core machine
     * spends seconds loading Netty, gRPC or Curator, which is not the server's time; a warm JVM (or a driver that
     * waits for a silent server) loads next to nothing, and the deadline stays the timeout plus {@link #GRACE}.
     */
    private static LockClient await(CompletableFuture<LockClient> task, Duration timeout, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        java.lang.management.ClassLoadingMXBean classes = java.lang.management.ManagementFactory.getClassLoadingMXBean();
        long cap = deadline + MAX_WARM_UP.toNanos();
        long loaded = classes.getTotalLoadedClassCount();
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) {
                throw new TimeoutException();
            }
            try {
                return task.get(Math.min(deadline - now, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException slice) {
                long nowLoaded = classes.getTotalLoadedClassCount();
                if (nowLoaded - loaded >= WARMING_CLASSES) {
                    // still loading classes: the clock for the server starts (again) now
                    deadline = Math.min(cap, Math.max(deadline, System.nanoTime() + timeout.toNanos() + GRACE.toNanos()));
                }
                loaded = nowLoaded;
            }
        }
    }

    /** Classes loaded within 100 ms that mean "still warming up" (a retry loop loads a handful at most). */
    private static final int WARMING_CLASSES = 25;

    /**
     * A TCP connect to each host until one accepts, within {@code timeout}.
     *
     * @throws CliException "cannot reach" with the reason of the last host tried
     */
    private static void probe(String uri, List<Endpoints.HostPort> hosts, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        for (Endpoints.HostPort hp : hosts) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                break;
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(hp.host(), hp.port()), (int) Math.min(Integer.MAX_VALUE, left));
                return;
            } catch (UnknownHostException e) {
                last = new UnknownHostException("unknown host " + hp.host());
            } catch (IOException | IllegalArgumentException e) {
                last = e;
            }
        }
        String why = last == null ? "no answer" : reason(last);
        throw new CliException(CliException.UNAVAILABLE, String.format("cannot reach %s at %s within %s (%s)",
                backendName(uri), hosts(uri), Durations.format(timeout), why), last);
    }

    private static String reason(Throwable t) {
        if (t instanceof java.net.SocketTimeoutException) {
            return "connect timed out";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : Secrets.mask(firstLine(m));
    }

    /** The user-facing form of a failure while talking to the backend at {@code uri} (after it was reached). */
    static CliException translate(String uri, Duration timeout, Throwable failure) {
        return translate(uri, timeout, failure, true);
    }

    private static CliException translate(String uri, Duration timeout, Throwable failure, boolean reached) {
        if (failure instanceof CliException) {
            return (CliException) failure;
        }
        if (failure instanceof IllegalArgumentException) {
            return new CliException(CliException.USAGE, Secrets.mask(failure.getMessage()), failure);
        }
        Throwable root = rootCause(failure);
        String why = root == null ? "" : reason(root);
        ConnectFailures.Cause cause = ConnectFailures.classify(failure);
        if (cause == ConnectFailures.Cause.AUTHENTICATION) {
            return new CliException(CliException.UNAVAILABLE, String.format("%s at %s refused the credentials (%s)",
                    backendName(uri), hosts(uri), why), failure);
        }
        if (reached && cause == ConnectFailures.Cause.TLS) {
            return new CliException(CliException.UNAVAILABLE, String.format("reached %s at %s, but %s",
                    backendName(uri), hosts(uri), ConnectFailures.describe(failure)), failure);
        }
        if (reached && isWrongProtocol(failure)) {
            String described = ConnectFailures.describe(failure); // a backend's own probe says what answered
            return wrongKind(uri, described != null && described.startsWith("not an") ? described : why, failure);
        }
        if (isTimeout(failure)) {
            return silent(uri, Endpoints.of(uri), timeout, failure);
        }
        if (isConnectionProblem(failure)) {
            return new CliException(CliException.UNAVAILABLE, String.format("cannot reach %s at %s within %s (%s)",
                    backendName(uri), hosts(uri), Durations.format(timeout), why), failure);
        }
        if (!reached) {
            return new CliException(CliException.UNAVAILABLE, String.format("%s failed: %s", describe(uri), why),
                    failure);
        }
        // the library's own words after "cannot connect to <backend> at <address>: ", which carry its advice
        String message = String.valueOf(failure.getMessage());
        int own = message.startsWith("cannot connect to ") ? message.indexOf(": ") : -1;
        return new CliException(CliException.UNAVAILABLE, String.format("reached %s at %s, but it refused: %s",
                backendName(uri), hosts(uri), own < 0 ? why : Secrets.mask(firstLine(message.substring(own + 2)))),
                failure);
    }

    /** The host answered TCP but no server of the URI's kind answered within the timeout. */
    private static CliException silent(String uri, List<Endpoints.HostPort> hosts, Duration timeout, Throwable cause) {
        String kind = backendName(uri).replace("rediss", "redis").replaceAll("-(sentinel|cluster)$", "");
        if (hosts.isEmpty()) {
            return new CliException(CliException.UNAVAILABLE, String.format("%s did not answer within %s%s",
                    describe(uri), Durations.format(timeout),
                    cause == null ? "" : " (" + reason(rootCause(cause)) + ")"), cause);
        }
        return new CliException(CliException.UNAVAILABLE, String.format(
                "reached %s, but no %s server answered there within %s (is it %s %s server?)", hosts(uri), kind,
                Durations.format(timeout), "aeiou".indexOf(kind.charAt(0)) >= 0 ? "an" : "a", kind), cause);
    }

    /** The host answered, but in another protocol (an HTTP server, a Redis server behind a PostgreSQL URI, …). */
    private static CliException wrongKind(String uri, String why, Throwable cause) {
        String kind = kind(uri);
        return new CliException(CliException.UNAVAILABLE, String.format(
                "reached %s, but no %s server answered there: it speaks another protocol (is it %s %s server? the "
                        + "driver said: %s)", hosts(uri), kind, article(kind), kind, why), cause);
    }

    /**
     * Whether the bytes that came back were not the driver's protocol ({@link ConnectFailures.Cause#WRONG_SERVER}),
     * or the JDBC driver met an unexpected first message (SQLSTATE {@code 08P01}).
     */
    private static boolean isWrongProtocol(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException && "08P01".equals(((java.sql.SQLException) t).getSQLState())) {
                return true; // SQLSTATE protocol_violation: e.g. PostgreSQL's reply to its TLS request was not one
            }
        }
        return ConnectFailures.classify(failure) == ConnectFailures.Cause.WRONG_SERVER;
    }

    private static String kind(String uri) {
        return backendName(uri).replace("rediss", "redis").replaceAll("-(sentinel|cluster)$", "");
    }

    private static String article(String kind) {
        return "aeiou".indexOf(kind.charAt(0)) >= 0 ? "an" : "a";
    }

    private static final java.util.regex.Pattern TIMEOUT = java.util.regex.Pattern.compile(
            "(?i)timed out|timeout|did not (answer|accept)|no connection within|within \\d+ ?ms|DEADLINE_EXCEEDED");

    private static boolean isTimeout(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TimeoutException || t instanceof java.net.SocketTimeoutException
                    || TIMEOUT.matcher(t.getClass().getSimpleName() + " " + t.getMessage()).find()) {
                return true;
            }
        }
        return false;
    }

    private static boolean isConnectionProblem(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof java.net.UnknownHostException
                    || t instanceof java.net.SocketTimeoutException || t instanceof java.sql.SQLTransientConnectionException
                    || t instanceof java.sql.SQLNonTransientConnectionException) {
                return true;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable t) {
        Throwable root = t;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s.strip() : s.substring(0, nl).strip();
    }

    /** The scheme of {@code uri} as users write it: {@code redis://}, {@code jdbc:postgresql:}, {@code foo:}. */
    static String scheme(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:")) {
            int second = uri.indexOf(':', 5);
            return second < 0 ? uri : uri.substring(0, second + 1);
        }
        int sep = uri.indexOf("://");
        if (sep > 0) {
            return uri.substring(0, sep + 3);
        }
        int colon = uri.indexOf(':');
        return colon > 0 ? uri.substring(0, colon + 1) : uri;
    }

    /** A short backend name: {@code redis}, {@code zookeeper}, {@code h2}, {@code postgresql}, {@code mem}. */
    static String backendName(String uri) {
        String scheme = scheme(uri).toLowerCase(Locale.ROOT);
        if (scheme.startsWith("jdbc:")) {
            scheme = scheme.substring(5);
        }
        return scheme.replace("://", "").replace(":", "");
    }

    /** The host list of {@code uri} (never its user-info), or a description for URIs without a network address. */
    static String hosts(String uri) {
        int sep = uri.indexOf("//");
        if (sep < 0) {
            return backendName(uri).equals("h2") ? "an embedded H2 database" : Secrets.mask(uri);
        }
        String rest = uri.substring(sep + 2);
        int end = rest.length();
        for (char c : new char[] {'/', '?', ';'}) {
            int i = rest.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        String authority = rest.substring(0, end);
        int at = authority.lastIndexOf('@');
        return at >= 0 ? authority.substring(at + 1) : authority;
    }

    /** The backend and its host, for messages. */
    static String describe(String uri) {
        return backendName(uri) + " at " + hosts(uri);
    }
}
