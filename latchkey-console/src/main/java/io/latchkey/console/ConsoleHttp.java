package io.latchkey.console;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The console's answers, whatever server carries them: routing, the page with its per-page-load CSRF token, the
 * event stream, and the force-unlock form with its same-origin checks.
 */
final class ConsoleHttp {

    /** How long an event stream stays silent before a keep-alive comment. */
    private static final long KEEP_ALIVE_MS = 15_000;

    private static final int MAX_BODY = 16 * 1024;

    /** How many page loads' CSRF tokens are remembered (the oldest are forgotten first). */
    private static final int CSRF_KEPT = 1024;

    private final LockConsole console;
    private final Semaphore streams;
    private final String page;
    private final byte[] script;
    private final byte[] style;
    private final byte[] icon;
    private final SecureRandom random = new SecureRandom();
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Boolean> csrf = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > CSRF_KEPT;
        }
    };

    ConsoleHttp(LockConsole console, int maxStreams) {
        this.console = console;
        this.streams = new Semaphore(maxStreams);
        this.page = new String(resource("index.html"), StandardCharsets.UTF_8);
        this.script = resource("console.js");
        this.style = resource("console.css");
        this.icon = resource("favicon.svg");
    }

    private static byte[] resource(String name) {
        try (InputStream in = ConsoleHttp.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("console resource missing from the jar: io/latchkey/console/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void handle(ConsoleExchange exchange, String who) throws IOException {
        exchange.setResponseHeader("Content-Security-Policy", LockConsole.CONTENT_SECURITY_POLICY);
        exchange.setResponseHeader("X-Content-Type-Options", "nosniff");
        exchange.setResponseHeader("X-Frame-Options", "DENY");
        exchange.setResponseHeader("Referrer-Policy", "no-referrer");
        exchange.setResponseHeader("Cache-Control", "no-store");
        String method = exchange.method();
        switch (exchange.path()) {
            case "/", "/index.html" -> get(exchange, method, "text/html; charset=utf-8",
                    page(exchange).getBytes(StandardCharsets.UTF_8));
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

    /** The page with a new CSRF token and the headers its changes must also carry. */
    private String page(ConsoleExchange exchange) {
        StringBuilder extra = new StringBuilder();
        for (Map.Entry<String, String> h : exchange.pageHeaders().entrySet()) {
            extra.append("<meta name=\"latchkey-header\" content=\"").append(attribute(h.getKey()))
                    .append("\" data-value=\"").append(attribute(h.getValue())).append("\">\n");
        }
        return page.replace("{{csrf}}", issueCsrf()).replace("{{headers}}\n", extra.toString());
    }

    private static String attribute(String s) {
        return s.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("'", "&#39;");
    }

    private static void get(ConsoleExchange exchange, String method, String type, byte[] body) throws IOException {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.setResponseHeader("Allow", "GET, HEAD");
            text(exchange, 405, "use GET");
            return;
        }
        send(exchange, 200, type, body);
    }

    private static void send(ConsoleExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.setResponseHeader("Content-Type", type);
        boolean head = exchange.method().equals("HEAD");
        try (OutputStream out = exchange.respond(status, head ? 0 : body.length)) {
            if (!head && body.length > 0) {
                out.write(body);
            }
        }
    }

    private static void text(ConsoleExchange exchange, int status, String message) throws IOException {
        send(exchange, status, "text/plain; charset=utf-8", (message + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void json(ConsoleExchange exchange, int status, boolean ok, String message) throws IOException {
        String body = new ConsoleJson().beginObject().field("ok", ok).field("message", message).endObject()
                .toString();
        send(exchange, status, "application/json; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
    }

    /** The live state as server-sent events: the whole state at once, then again at every change. */
    private void events(ConsoleExchange exchange, String method) throws IOException {
        if (!method.equals("GET")) {
            exchange.setResponseHeader("Allow", "GET");
            text(exchange, 405, "use GET");
            return;
        }
        if (!streams.tryAcquire()) {
            exchange.setResponseHeader("Retry-After", "5");
            text(exchange, 503, "too many open console pages; close one and reload");
            return;
        }
        try {
            exchange.setResponseHeader("Content-Type", "text/event-stream; charset=utf-8");
            exchange.setResponseHeader("X-Accel-Buffering", "no");
            try (OutputStream out = exchange.respond(200, -1)) {
                ConsoleState.Snapshot s = console.state().snapshot();
                long sent = -1;
                while (!console.closed()) {
                    if (s.version() != sent) {
                        out.write(("event: state\ndata: " + s.json() + "\n\n").getBytes(StandardCharsets.UTF_8));
                        sent = s.version();
                    } else {
                        out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    }
                    out.flush();
                    s = console.state().awaitChange(sent, KEEP_ALIVE_MS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the page went away
        } finally {
            streams.release();
        }
    }

    private void unlock(ConsoleExchange exchange, String method, String who) throws IOException {
        if (!method.equals("POST")) {
            exchange.setResponseHeader("Allow", "POST");
            text(exchange, 405, "use POST");
            return;
        }
        if (!sameOriginChange(exchange)) {
            json(exchange, 403, false, "refused: a force-unlock must come from the console's own page (its "
                    + LockConsole.CSRF_HEADER + " token and origin); reload the page and try again");
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
        LockConsole.UnlockResult r = console.unlock(name, kind, owner, token, who, exchange.remoteAddress());
        json(exchange, r.status(), r.status() == 200, r.message());
    }

    /**
     * Whether a change comes from the console's own page: its {@code Origin} (when the browser sends one) is the
     * console's, {@code Sec-Fetch-Site} (when sent) is {@code same-origin}, and it carries a CSRF token this console
     * issued with a page.
     */
    private boolean sameOriginChange(ConsoleExchange exchange) {
        String origin = exchange.header("Origin");
        if (origin != null && !origin.equalsIgnoreCase(exchange.origin())) {
            return false;
        }
        String site = exchange.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin")) {
            return false;
        }
        String token = exchange.header(LockConsole.CSRF_HEADER);
        if (token == null) {
            return false;
        }
        lock.lock();
        try {
            return csrf.containsKey(token);
        } finally {
            lock.unlock();
        }
    }

    /** A new CSRF token for one page load (32 random bytes, hex). */
    private String issueCsrf() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = HexFormat.of().formatHex(bytes);
        lock.lock();
        try {
            csrf.put(token, Boolean.TRUE);
        } finally {
            lock.unlock();
        }
        return token;
    }

    private static Map<String, String> form(ConsoleExchange exchange) throws IOException {
        String type = exchange.header("Content-Type");
        if (type == null || !type.startsWith("application/x-www-form-urlencoded")) {
            throw new IllegalArgumentException("send the form as application/x-www-form-urlencoded but was " + type);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try (InputStream in = exchange.body()) {
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
}
