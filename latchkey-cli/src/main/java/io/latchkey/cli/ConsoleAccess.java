package io.latchkey.cli;

import com.sun.net.httpserver.HttpExchange;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Who may use the command's console: access tokens (none on a loopback address, then every request is
 * {@code local}) and the {@code Host} a browser names (a loopback console answers loopback names only, which defeats
 * DNS rebinding). Whether a change is the page's own (its CSRF token and origin) the console itself checks.
 */
final class ConsoleAccess {

    /** The cookie the console sets from {@code ?token=}. */
    static final String COOKIE = "latchkey_console";

    private final Map<String, String> tokens;
    private final boolean loopback;
    private int port;

    /**
     * @param tokens the access tokens by secret, each with its label for the audit log; empty for none
     * @param loopback whether the console listens on a loopback address only
     */
    ConsoleAccess(Map<String, String> tokens, boolean loopback) {
        this.tokens = Map.copyOf(tokens);
        this.loopback = loopback;
    }

    void port(int port) {
        this.port = port;
    }

    boolean tokensRequired() {
        return !tokens.isEmpty();
    }

    /**
     * The label of the caller's access token ({@code local} if the console has none), or null if the request has no
     * valid one: from {@code Authorization: Bearer}, the cookie, or the {@code token} query parameter.
     */
    String caller(HttpExchange exchange) {
        if (tokens.isEmpty()) {
            return "local";
        }
        String bearer = exchange.getRequestHeaders().getFirst("Authorization");
        if (bearer != null && bearer.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String label = label(bearer.substring(7).strip());
            if (label != null) {
                return label;
            }
        }
        List<String> cookies = exchange.getRequestHeaders().get("Cookie");
        if (cookies != null) {
            for (String header : cookies) {
                for (String c : header.split(";")) {
                    String pair = c.strip();
                    if (pair.startsWith(COOKIE + "=")) {
                        String label = label(pair.substring(COOKIE.length() + 1));
                        if (label != null) {
                            return label;
                        }
                    }
                }
            }
        }
        String query = queryToken(exchange.getRequestURI());
        return query == null ? null : label(query);
    }

    /** The {@code token} query parameter, or null. */
    static String queryToken(URI uri) {
        String q = uri.getRawQuery();
        if (q == null) {
            return null;
        }
        for (String p : q.split("&")) {
            if (p.startsWith("token=")) {
                return java.net.URLDecoder.decode(p.substring(6), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** The label of {@code secret}, compared in constant time with every token, or null. */
    private String label(String secret) {
        byte[] given = secret.getBytes(StandardCharsets.UTF_8);
        String found = null;
        for (Map.Entry<String, String> t : tokens.entrySet()) {
            if (MessageDigest.isEqual(given, t.getKey().getBytes(StandardCharsets.UTF_8))) {
                found = t.getValue();
            }
        }
        return found;
    }

    /**
     * Whether the {@code Host} header names this console: on a loopback address only {@code localhost},
     * {@code 127.0.0.1} or {@code [::1]} with its port (a foreign name resolving to 127.0.0.1 is refused); on
     * another address any name (the access token guards it).
     */
    boolean hostAllowed(HttpExchange exchange) {
        String host = exchange.getRequestHeaders().getFirst("Host");
        if (host == null) {
            return false;
        }
        if (!loopback) {
            return true;
        }
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost:" + port) || h.equals("127.0.0.1:" + port) || h.equals("[::1]:" + port);
    }
}
