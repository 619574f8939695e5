package io.latchkey.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.latchkey.console.ConsoleExchange;
import io.latchkey.console.LockConsole;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The command's console server, on the JDK's {@code com.sun.net.httpserver}: checks who may use it
 * ({@link ConsoleAccess}: the {@code Host}, the access token, the token's cookie) and hands every request to the
 * {@link LockConsole}, which answers it (the page, its assets, {@code /events}, {@code /api/state},
 * {@code POST /api/unlock}). Requests run on {@value #THREADS} named threads ({@code latchkey-console-http-N}); an
 * event stream keeps one of them, so at most {@value #STREAMS} streams are served at once.
 */
final class ConsoleServer implements AutoCloseable {

    static final int THREADS = 16;
    static final int STREAMS = 12;

    static final String CSP = LockConsole.CONTENT_SECURITY_POLICY;

    private final LockConsole console;
    private final ConsoleAccess access;
    private final HttpServer server;
    private final ExecutorService executor;

    /**
     * Binds the server (it serves only after {@link #start()}).
     *
     * @throws IOException if the address cannot be bound (in use, not this host's)
     */
    ConsoleServer(InetSocketAddress address, LockConsole console, ConsoleAccess access) throws IOException {
        this.console = console;
        this.access = access;
        this.server = HttpServer.create(address, 64);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "latchkey-console-http-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        this.executor = pool;
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        access.port(server.getAddress().getPort());
    }

    ConsoleServer start() {
        server.start();
        return this;
    }

    /** The address the server listens on (with the port chosen if 0 was asked for). */
    InetSocketAddress address() {
        return server.getAddress();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            var h = exchange.getResponseHeaders();
            h.set("Content-Security-Policy", CSP);
            h.set("X-Content-Type-Options", "nosniff");
            h.set("X-Frame-Options", "DENY");
            h.set("Cache-Control", "no-store");
            if (!access.hostAllowed(exchange)) {
                text(exchange, 421, "this console answers to localhost, 127.0.0.1 or [::1] only");
                return;
            }
            String who = access.caller(exchange);
            if (who == null) {
                text(exchange, 401, "an access token is required: open the console with ?token=TOKEN once, or "
                        + "send Authorization: Bearer TOKEN");
                return;
            }
            if (access.tokensRequired() && ConsoleAccess.queryToken(exchange.getRequestURI()) != null
                    && exchange.getRequestMethod().equals("GET")) {
                // keep the token out of the address bar and the history: a cookie from now on
                h.add("Set-Cookie", ConsoleAccess.COOKIE + "=" + ConsoleAccess.queryToken(exchange.getRequestURI())
                        + "; Path=/; HttpOnly; SameSite=Strict");
                h.set("Location", "/"); // never the request's path: no open redirect
                exchange.sendResponseHeaders(303, -1);
                return;
            }
            console.handle(new JdkExchange(exchange), who);
        }
    }

    private static void text(HttpExchange exchange, int status, String message) throws IOException {
        byte[] body = (message + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** A JDK server exchange as the console reads and answers it. */
    private record JdkExchange(HttpExchange exchange) implements ConsoleExchange {

        @Override
        public String method() {
            return exchange.getRequestMethod();
        }

        @Override
        public String path() {
            return exchange.getRequestURI().getPath();
        }

        @Override
        public String header(String name) {
            return exchange.getRequestHeaders().getFirst(name);
        }

        @Override
        public String origin() {
            return "http://" + exchange.getRequestHeaders().getFirst("Host");
        }

        @Override
        public String remoteAddress() {
            return exchange.getRemoteAddress().getAddress().getHostAddress();
        }

        @Override
        public InputStream body() {
            return exchange.getRequestBody();
        }

        @Override
        public void setResponseHeader(String name, String value) {
            exchange.getResponseHeaders().set(name, value);
        }

        @Override
        public OutputStream respond(int status, long length) throws IOException {
            // the JDK server's lengths: -1 no body, 0 chunked
            exchange.sendResponseHeaders(status, length == 0 ? -1 : length < 0 ? 0 : length);
            return exchange.getResponseBody();
        }
    }

    /** Stops serving: request threads are stopped (close the console first: its event streams end with it). */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
