package io.latchkey.cli;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.spi.LockClientProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens {@link LockClient}s for the command line with the errors a user can read: an unknown scheme lists the
 * supported ones, an unreachable server gives one line with its host and the timeout. The connect and a first
 * remote query run under a deadline of our own, because a driver's connect may retry for longer than the operation
 * timeout (Curator's connection timeout, Lettuce's reconnects).
 */
final class Connector {

    /** A lock whose state is queried to check the connection; nothing is created under it. */
    private static final String PROBE_LOCK = "latchkey-cli:probe";

    private static final java.util.regex.Pattern AUTH_FAILURE = java.util.regex.Pattern.compile(
            "(?i)WRONGPASS|NOAUTH|NOPERM|authentication failed|password authentication|access denied|KeeperErrorCode = (NoAuth|AuthFailed)");

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

    /** Fails with the list of supported schemes unless a backend accepts {@code uri}. */
    static void checkScheme(String uri) {
        Secrets.register(uri);
        if (!isSupported(uri)) {
            List<String> known = supportedPrefixes();
            String scheme = scheme(uri);
            throw new CliException(CliException.USAGE, String.format(
                    "unsupported URI scheme '%s' in %s; supported schemes: %s", scheme, Secrets.mask(uri),
                    known.isEmpty() ? "none (no backend module on the class path)" : String.join(", ", known)));
        }
    }

    /**
     * Connects to {@code uri} and makes one remote query. The backend's own operation timeout ({@code timeout})
     * normally ends a failed attempt with its cause; our deadline is a safety net for drivers that keep retrying,
     * with room for the first connect's class loading and thread pools on a busy machine.
     */
    static LockClient open(String uri, Duration timeout) {
        return open(uri, timeout, ClientOptions.builder());
    }

    /** {@link #open(String, Duration)} with further options (e.g. a short watchdog for {@code verify}). */
    static LockClient open(String uri, Duration timeout, ClientOptions.Builder optionsBuilder) {
        checkScheme(uri);
        ClientOptions options = optionsBuilder.operationTimeout(timeout).build();
        FutureTask<LockClient> task = new FutureTask<>(() -> {
            LockClient client = LockClient.connect(uri, options);
            try {
                client.lock(PROBE_LOCK).isLocked();
                return client;
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
        });
        Thread connecting = new Thread(task, "latchkey-cli-connect");
        connecting.setDaemon(true);
        connecting.start();
        try {
            return task.get(timeout.toMillis() * 2 + 15_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            task.cancel(true);
            throw unreachable(uri, timeout, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            throw new CliException(CliException.UNAVAILABLE, "interrupted while connecting to " + Secrets.mask(uri));
        } catch (ExecutionException e) {
            throw translate(uri, timeout, e.getCause());
        }
    }

    /** The user-facing form of a failure while talking to the backend at {@code uri}. */
    static CliException translate(String uri, Duration timeout, Throwable failure) {
        if (failure instanceof CliException) {
            return (CliException) failure;
        }
        if (failure instanceof IllegalArgumentException) {
            return new CliException(CliException.USAGE, Secrets.mask(failure.getMessage()), failure);
        }
        if (failure instanceof LockUnavailableException || isConnectionProblem(failure)) {
            return unreachable(uri, timeout, failure);
        }
        String message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        return new CliException(CliException.UNAVAILABLE,
                String.format("%s failed: %s", describe(uri), Secrets.mask(firstLine(message))), failure);
    }

    private static CliException unreachable(String uri, Duration timeout, Throwable cause) {
        String why = "";
        Throwable root = rootCause(cause);
        if (root != null && root.getMessage() != null) {
            why = " (" + Secrets.mask(firstLine(root.getMessage())) + ")";
        }
        if (root != null && root.getMessage() != null && AUTH_FAILURE.matcher(root.getMessage()).find()) {
            return new CliException(CliException.UNAVAILABLE, String.format("%s at %s refused the credentials%s",
                    backendName(uri), hosts(uri), why), cause);
        }
        return new CliException(CliException.UNAVAILABLE, String.format("cannot reach %s at %s within %s%s",
                backendName(uri), hosts(uri), Durations.format(timeout), why), cause);
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
