package io.latchkey.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The console's HTTP server, on the JDK's {@code com.sun.net.httpserver}: the page ({@code /}), its script and style
 * sheet, the live state as server-sent events ({@code /events}) or one JSON answer ({@code /api/state}), and
 * force-unlock ({@code POST /api/unlock}). Requests run on {@value #THREADS} named threads
 * ({@code latchkey-console-http-N}); an event stream keeps one of them, so at most {@value #STREAMS} streams are
 * served at once. Every answer carries a strict Content-Security-Policy (no inline script) and refuses framing.
 */
final class ConsoleServer implements AutoCloseable {

    static final int THREADS = 16;
    static final int STREAMS = 12;

    /** How long an event stream stays silent before a keep-alive comment. */
    private static final long KEEP_ALIVE_MS = 15_000;

    private static final int MAX_BODY = 16 * 1024;

    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private final Console console;
    private final ConsoleAccess access;
    private final HttpServer server;
    private final ExecutorService executor;
    private final Semaphore streams = new Semaphore(STREAMS);
    private final String page;
    private final byte[] script;
    private final byte[] style;
    private final byte[] icon;
    private volatile boolean closed;

    /**
     * Binds the server (it serves only after {@link #start()}).
     *
     * @throws IOException if the address cannot be bound (in use, not this host's)
     */
    ConsoleServer(InetSocketAddress address, Console console, ConsoleAccess access) throws IOException {
        this.console = console;
        this.access = access;
        this.page = new String(resource("index.html"), StandardCharsets.UTF_8);
        this.script = resource("console.js");
        this.style = resource("console.css");
        this.icon = resource("favicon.svg");
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

    private static byte[] resource(String name) {
        try (InputStream in = ConsoleServer.class.getResourceAsStream("console/" + name)) {
            if (in == null) {
                throw new IllegalStateException("console resource missing from the jar: console/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            headers(exchange);
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
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if (access.tokensRequired() && ConsoleAccess.queryToken(exchange.getRequestURI()) != null
                    && method.equals("GET")) {
                // keep the token out of the address bar and the history: a cookie from now on
                exchange.getResponseHeaders().add("Set-Cookie", ConsoleAccess.COOKIE + "="
                        + ConsoleAccess.queryToken(exchange.getRequestURI()) + "; Path=/; HttpOnly; SameSite=Strict");
                exchange.getResponseHeaders().set("Location", "/"); // never the request's path: no open redirect
                exchange.sendResponseHeaders(303, -1);
                return;
            }
            switch (path) {
                case "/", "/index.html" -> get(exchange, method, "text/html; charset=utf-8",
                        page.replace("{{csrf}}", access.issueCsrf()).getBytes(StandardCharsets.UTF_8));
                case "/console.js" -> get(exchange, method, "text/javascript; charset=utf-8", script);
                case "/console.css" -> get(exchange, method, "text/css; charset=utf-8", style);
                case "/favicon.svg", "/favicon.ico" -> get(exchange, method, "image/svg+xml", icon);
                case "/api/state" -> get(exchange, method, "application/json; charset=utf-8",
                        console.state().snapshot().json().getBytes(StandardCharsets.UTF_8));
                case "/events" -> events(exchange, method);
                case "/api/unlock" -> unlock(exchange, method, who);
                default -> text(exchange, 404, "not found: the console serves /, /events, /api/state and /api/unlock");
            }
        }
    }

    private static void headers(HttpExchange exchange) {
        var h = exchange.getResponseHeaders();
        h.set("Content-Security-Policy", CSP);
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "no-referrer");
        h.set("Cache-Control", "no-store");
    }

    private static void get(HttpExchange exchange, String method, String type, byte[] body) throws IOException {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            text(exchange, 405, "use GET");
            return;
        }
        send(exchange, 200, type, body);
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static void text(HttpExchange exchange, int status, String message) throws IOException {
        send(exchange, status, "text/plain; charset=utf-8", (message + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void json(HttpExchange exchange, int status, boolean ok, String message) throws IOException {
        String body = new ConsoleJson().beginObject().field("ok", ok).field("message", message).endObject()
                .toString();
        send(exchange, status, "application/json; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    /** The live state as server-sent events: the whole state at once, then again at every change. */
    private void events(HttpExchange exchange, String method) throws IOException {
        if (!method.equals("GET")) {
            text(exchange, 405, "use GET");
            return;
        }
        if (!streams.tryAcquire()) {
            text(exchange, 503, String.format("this console serves %d live pages at most; close one", STREAMS));
            return;
        }
        try {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            out.write("retry: 1000\n\n".getBytes(StandardCharsets.UTF_8));
            ConsoleState.Snapshot s = console.state().snapshot();
            long sent = -1;
            while (!closed) {
                if (s.version() != sent) {
                    out.write(("event: state\ndata: " + s.json() + "\n\n").getBytes(StandardCharsets.UTF_8));
                    sent = s.version();
                } else {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                }
                out.flush();
                s = console.state().awaitChange(sent, KEEP_ALIVE_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the page went away
        } finally {
            streams.release();
        }
    }

    private void unlock(HttpExchange exchange, String method, String who) throws IOException {
        if (!method.equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "POST");
            text(exchange, 405, "use POST");
            return;
        }
        if (!access.sameOriginChange(exchange)) {
            json(exchange, 403, false, "refused: a force-unlock must come from the console's own page (its "
                    + ConsoleAccess.CSRF_HEADER + " token and origin); reload the page and try again");
            return;
        }
        Map<String, String> form;
        try {
            form = form(exchange);
        } catch (IllegalArgumentException e) {
            json(exchange, 400, false, e.getMessage());
            return;
        }
        String name = form.get("name");
        String kind = form.getOrDefault("kind", "lock");
        String owner = form.get("owner");
        long token;
        try {
            String t = form.getOrDefault("token", "");
            token = t.isEmpty() ? -1 : Long.parseLong(t);
        } catch (NumberFormatException e) {
            json(exchange, 400, false, "token must be a number or empty but was '" + form.get("token") + "'");
            return;
        }
        if (name == null || name.isEmpty() || owner == null) {
            json(exchange, 400, false, "name and owner are required");
            return;
        }
        String remote = exchange.getRemoteAddress().getAddress().getHostAddress();
        Console.UnlockResult r = console.unlock(name, kind, owner, token, who, remote);
        json(exchange, r.status(), r.status() == 200, r.message());
    }

    private static Map<String, String> form(HttpExchange exchange) throws IOException {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.startsWith("application/x-www-form-urlencoded")) {
            throw new IllegalArgumentException("send the form as application/x-www-form-urlencoded but was " + type);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try (InputStream in = exchange.getRequestBody()) {
            byte[] buf = new byte[4096];
            for (int r; (r = in.read(buf)) > 0; ) {
                body.write(buf, 0, r);
                if (body.size() > MAX_BODY) {
                    throw new IllegalArgumentException("the form is longer than " + MAX_BODY + " bytes");
                }
            }
        }
        Map<String, String> form = new HashMap<>();
        for (String pair : body.toString(StandardCharsets.UTF_8).split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return form;
    }

    /** Stops serving: open event streams end, request threads are stopped. */
    @Override
    public void close() {
        closed = true;
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
