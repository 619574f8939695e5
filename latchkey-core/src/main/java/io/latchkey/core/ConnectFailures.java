package io.latchkey.core;

import io.latchkey.LockUnavailableException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;

/**
 * Names the cause of a failed connect in words, shared by every backend and the {@code latchkey} command, so that
 * the top message of the exception says what the driver buried causes deep: the credentials were refused, the TLS
 * handshake failed, nothing listens at the address, or the server there speaks another protocol; and makes every
 * backend's exception for a server that could not do an operation ({@link #unavailable}).
 */
public final class ConnectFailures {

    /** Why a connect failed, as far as the driver's exception chain tells. */
    public enum Cause {
        /** The server refused the credentials, or wants some. */
        AUTHENTICATION,
        /** The TLS handshake failed (untrusted certificate, or a server that does not speak TLS). */
        TLS,
        /** Nothing listens at the address. */
        REFUSED,
        /** The host name does not resolve. */
        UNKNOWN_HOST,
        /** The server answered in another protocol: a server of another kind. */
        WRONG_SERVER
    }

    private static final Pattern AUTHENTICATION = Pattern.compile(
            "(?i)WRONGPASS|NOAUTH|NOPERM|authentication failed|password authentication|access denied|"
                    + "requested password-based authentication|"
                    + "KeeperErrorCode = (NoAuth|AuthFailed)|UNAUTHENTICATED");

    private static final Pattern TLS = Pattern.compile(
            "(?i)TLS handshake|speaks TLS|NotSslRecordException|not an SSL/TLS record|SSLHandshakeException|"
                    + "PKIX path building failed");

    /**
     * What drivers throw when the bytes that came back are not their protocol: Lettuce's decoder on an HTTP reply
     * ({@code Invalid first byte: 60 (<)}), the PostgreSQL driver on an unexpected first message, gRPC (etcd) on an
     * HTTP/1.x reply, ZooKeeper on a length that no ZooKeeper frame has, Lettuce when the server closes the
     * connection in answer to its HELLO (etcd does, and so does a Redis TLS port spoken to in plain text).
     */
    private static final Pattern WRONG_PROTOCOL = Pattern.compile(
            "(?i)RedisProtocolException|Invalid first byte|protocol error|unexpected packet|expected authentication "
                    + "request|HTTP/1\\.|Http2Exception|first received frame was not SETTINGS|"
                    + "Unreasonable length|Packet len -?\\d+ is out of range|not an? \\w+ server|"
                    + "Connection closed prematurely");

    private ConnectFailures() {
    }

    /**
     * The exception of every backend for a server that could not do an operation (down, unreachable, too slow, or the
     * client closing): its message names the server, the operation and the cause, as in {@code redis at
     * 127.0.0.1:6379: release of lock 'a' failed: Connection closed}.
     *
     * @param server the server, as the user named it (host:port, endpoints, a directory; never credentials)
     * @param operation what could not be done, such as {@code "acquire of lock 'a'"}
     * @param cause the driver's failure ({@link java.util.concurrent.CompletionException} and
     *        {@link java.util.concurrent.ExecutionException} unwrapped), or {@code null}
     * @return {@code cause} itself if it is a {@link LockUnavailableException} already (it names its server), else a
     *         new one with {@code cause} as its cause
     */
    public static LockUnavailableException unavailable(String server, String operation, Throwable cause) {
        Throwable c = cause;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof LockUnavailableException u) {
            return u;
        }
        return new LockUnavailableException(server + ": " + operation + " failed" + (c == null ? "" : ": " + words(c)),
                c);
    }

    /**
     * The cause of a failed connect, read from the whole exception chain.
     *
     * @param failure what the driver threw
     * @return the cause, or {@code null} if the chain names none of them
     */
    public static Cause classify(Throwable failure) {
        // TLS first: a probe's words about a plain port may quote the server's NOAUTH
        if (find(failure, ConnectFailures::isTls) != null) {
            return Cause.TLS;
        }
        if (find(failure, ConnectFailures::isAuthentication) != null) {
            return Cause.AUTHENTICATION;
        }
        if (find(failure, ConnectFailures::isWrongProtocol) != null) {
            return Cause.WRONG_SERVER;
        }
        if (find(failure, x -> x instanceof UnknownHostException) != null) {
            return Cause.UNKNOWN_HOST;
        }
        if (find(failure, ConnectFailures::isRefused) != null) {
            return Cause.REFUSED;
        }
        return null;
    }

    /**
     * The cause of a failed connect in words for the top of a message, with the server's or driver's own words in
     * parentheses: {@code authentication failed (WRONGPASS invalid username-password pair …)}, {@code TLS handshake
     * failed (…)}, {@code connection refused}, {@code unknown host (…)}, {@code not a server of the expected kind (…)}.
     *
     * @param failure what the driver threw
     * @return the words, or {@code null} if the chain names no cause that {@link #classify} knows
     */
    public static String describe(Throwable failure) {
        Cause cause = classify(failure);
        if (cause == null) {
            return null;
        }
        switch (cause) {
            case AUTHENTICATION:
                return "authentication failed (" + words(find(failure, ConnectFailures::isAuthentication)) + ")";
            case TLS: {
                String words = words(find(failure, ConnectFailures::isTls));
                return words.regionMatches(true, 0, "TLS handshake", 0, 13) ? words
                        : "TLS handshake failed (" + words + ")";
            }
            case WRONG_SERVER: {
                String words = words(find(failure, ConnectFailures::isWrongProtocol));
                return words.matches("(?is)not an? \\w+ server.*") ? words
                        : "not a server of the expected kind (" + words + ")";
            }
            case UNKNOWN_HOST:
                return "unknown host (" + words(find(failure, x -> x instanceof UnknownHostException)) + ")";
            default:
                return "connection refused";
        }
    }

    /**
     * Whether nothing listens at any of {@code addresses}: a plain TCP connect to each, refused by every one. An
     * address that accepts, or does not answer within {@code millis}, means no.
     *
     * @param addresses the servers' addresses (resolved here if they are not)
     * @param millis the most this may take in all
     * @return {@code true} only if every address refused the connection
     */
    public static boolean refusedEverywhere(List<InetSocketAddress> addresses, long millis) {
        if (addresses.isEmpty()) {
            return false;
        }
        long deadline = System.nanoTime() + millis * 1_000_000L;
        for (InetSocketAddress address : addresses) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                return false;
            }
            InetSocketAddress resolved = address.isUnresolved()
                    ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
            if (resolved.isUnresolved()) {
                return false;
            }
            try (Socket socket = new Socket()) {
                socket.connect(resolved, (int) Math.min(Integer.MAX_VALUE, left));
                return false;
            } catch (ConnectException e) {
                // refused: try the next one
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAuthentication(Throwable t) {
        return t.getMessage() != null && AUTHENTICATION.matcher(t.getMessage()).find();
    }

    private static boolean isTls(Throwable t) {
        return t instanceof javax.net.ssl.SSLException
                || TLS.matcher(t.getClass().getName() + " " + t.getMessage()).find();
    }

    private static boolean isWrongProtocol(Throwable t) {
        return WRONG_PROTOCOL.matcher(t.getClass().getName() + " " + t.getMessage()).find();
    }

    private static boolean isRefused(Throwable t) {
        return t instanceof ConnectException
                || (t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains("connection refused"));
    }

    /** The deepest throwable of the chain that passes {@code test}: its message is the server's own words. */
    private static Throwable find(Throwable failure, java.util.function.Predicate<Throwable> test) {
        Throwable found = null;
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (test.test(t)) {
                found = t;
            }
        }
        return found;
    }

    /** The throwable's message (the first of its causes' when it has none), without a leading class name. */
    private static String words(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            Throwable cause = t.getCause();
            return cause != null && cause != t ? words(cause) : t.getClass().getSimpleName();
        }
        m = m.strip().replaceFirst("^([a-z][\\w$]*\\.)+[A-Z][\\w$]*: ", "");
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl).strip();
    }
}
