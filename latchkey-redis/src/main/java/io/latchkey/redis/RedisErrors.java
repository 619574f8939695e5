package io.latchkey.redis;

import io.latchkey.LockException;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Turns driver errors into Latchkey's: unreachable or slow servers into {@link LockUnavailableException} naming
 * the server (host:port, never credentials) and the operation, server-side refusals into {@link LockException}.
 */
final class RedisErrors {

    private final String address;
    private final Duration timeout;

    RedisErrors(String address, Duration timeout) {
        this.address = address;
        this.timeout = timeout;
    }

    String address() {
        return address;
    }

    RuntimeException map(Throwable error, String operation) {
        Throwable e = unwrap(error);
        if (e instanceof LockException) {
            return (LockException) e;
        }
        String cause = "connect".equals(operation) ? connectFailure(e) : null;
        if (cause != null) {
            // The driver's "Unable to connect" hides the reason causes deep: name it at the top.
            return new LockUnavailableException(String.format("cannot connect to redis at %s: %s", address,
                    cause), e);
        }
        if (e instanceof RedisCommandTimeoutException || e instanceof TimeoutException) {
            return new LockUnavailableException(String.format("redis at %s did not answer %s within %s", address,
                    operation, timeout), e);
        }
        if (e instanceof RedisCommandExecutionException && !isTransientServerError(e.getMessage())) {
            return new LockException(String.format("redis at %s refused %s: %s", address, operation,
                    e.getMessage()), e);
        }
        return ConnectFailures.unavailable("redis at " + address, operation, e);
    }

    /**
     * Why a connect failed, in words for the top of the message, or {@code null} if nothing in the chain says: the
     * common causes ({@link ConnectFailures#describe}), a server of the wrong kind ({@link RedisServerKind}), or a
     * server that refused the connection's setup (the URI's database, say).
     */
    private static String connectFailure(Throwable e) {
        Throwable misdirected = first(e, t -> t instanceof RedisServerKind.Misdirected);
        if (misdirected != null) {
            return misdirected.getMessage();
        }
        String cause = ConnectFailures.describe(e);
        if (cause != null) {
            // the server's own NOAUTH: no credentials were sent
            return cause.startsWith("authentication failed (NOAUTH") ? cause + "; the server wants a password: give "
                    + "it in the URI (redis://:PASSWORD@host:port, or redis://USER:PASSWORD@host:port)" : cause;
        }
        Throwable refusal = first(e, t -> t instanceof RedisCommandExecutionException);
        if (refusal == null) {
            return null;
        }
        String words = String.valueOf(refusal.getMessage());
        return "the server refused the connection's setup (" + words + ")" + (words.contains("DB index")
                ? ": the URI's database number is not below the server's 'databases' setting (16 by default)" : "");
    }

    /** The first of {@code e} and its causes that passes {@code test}, or {@code null}. */
    private static Throwable first(Throwable e, Predicate<Throwable> test) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (test.test(t)) {
                return t;
            }
        }
        return null;
    }

    /** A server that is loading, read-only (failover) or busy with a script will answer again soon. */
    private static boolean isTransientServerError(String message) {
        return message != null && Stream.of("LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN")
                .anyMatch(message::startsWith);
    }

    static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Whether {@code e} or any of its causes passes {@code test}. */
    static boolean anyCause(Throwable e, Predicate<Throwable> test) {
        return first(e, test) != null;
    }

    static boolean isNoScript(Throwable e) {
        Throwable t = unwrap(e);
        return t instanceof io.lettuce.core.RedisNoScriptException
                || (t instanceof RedisCommandExecutionException && t.getMessage() != null
                        && t.getMessage().startsWith("NOSCRIPT"));
    }
}
