package io.latchkey.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * One HTTP request to the console and its answer, as the server that carries the console hands it over: the
 * {@code latchkey console} command's own server, or a servlet filter under an application's actuator. The console
 * calls {@link #respond} once per request, after any {@link #setResponseHeader}; the server ends the exchange after
 * {@link LockConsole#handle} returns.
 */
public interface ConsoleExchange {

    /** {@return the request's method, such as {@code GET} or {@code POST}} */
    String method();

    /**
     * {@return the request's path below the console's root, starting with {@code /}: {@code /} for the page,
     * {@code /events}, {@code /api/state}, {@code /api/unlock} and the page's assets}
     */
    String path();

    /**
     * {@return the first value of the request header {@code name} (matched ignoring case), or null}
     *
     * @param name the header's name
     */
    String header(String name);

    /**
     * {@return the origin this request was addressed to, as a browser names it in {@code Origin}: scheme, host and,
     * unless the scheme's default, port (e.g. {@code http://127.0.0.1:7070})}; a change whose {@code Origin}
     * differs is refused
     */
    String origin();

    /** {@return the address the request came from, for the audit log} */
    String remoteAddress();

    /**
     * {@return the request body}
     *
     * @throws IOException if it cannot be read
     */
    InputStream body() throws IOException;

    /**
     * Sets a response header (before {@link #respond}).
     *
     * @param name the header's name
     * @param value its value
     */
    void setResponseHeader(String name, String value);

    /**
     * Sends the status and the headers set so far, and returns where the body goes.
     *
     * @param status the HTTP status
     * @param length the body's length in bytes, {@code 0} for none, or {@code -1} for a stream of unknown length
     *        (server-sent events) that the server must pass on as it is flushed
     * @return the body's stream; closed by the console
     * @throws IOException if the client went away
     */
    OutputStream respond(int status, long length) throws IOException;

    /**
     * {@return headers that the page's own changes must also carry for the application's protection to let them
     * through (such as the application's CSRF token), by name; empty by default}
     */
    default java.util.Map<String, String> pageHeaders() {
        return java.util.Map.of();
    }
}
