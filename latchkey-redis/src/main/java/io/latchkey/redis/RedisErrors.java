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
        String cause = "connect".equals(operation) ? ConnectFailures.describe(e) : null;
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
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (test.test(t)) {
                return true;
            }
        }
        return false;
    }

    static boolean isNoScript(Throwable e) {
        Throwable t = unwrap(e);
        return t instanceof io.lettuce.core.RedisNoScriptException
                || (t instanceof RedisCommandExecutionException && t.getMessage() != null
                        && t.getMessage().startsWith("NOSCRIPT"));
    }
}
