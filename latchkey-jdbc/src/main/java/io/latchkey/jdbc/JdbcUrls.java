package io.latchkey.jdbc;

/** JDBC URLs as they may appear in messages: without user info, query string or H2 settings (passwords). */
final class JdbcUrls {

    private JdbcUrls() {
    }

    static String redact(String url) {
        if (url == null) {
            return "unknown database";
        }
        String u = url;
        int cut = indexOfAny(u, '?', ';');
        if (cut >= 0) {
            u = u.substring(0, cut);
        }
        int slashes = u.indexOf("//");
        if (slashes >= 0) {
            int at = u.indexOf('@', slashes + 2);
            int slash = u.indexOf('/', slashes + 2);
            if (at >= 0 && (slash < 0 || at < slash)) {
                u = u.substring(0, slashes + 2) + u.substring(at + 1);
            }
        }
        return u;
    }

    /** The prefix of the URL parameters that are the client's, not the driver's. */
    static final String PARAM_PREFIX = "latchkey.";

    /**
     * {@code options} with the client's own parameters of {@code url} applied ({@code latchkey.pooling=detect|session|
     * transaction}, {@code latchkey.listenUrl=<URL-encoded jdbc:postgresql: URL>}).
     *
     * @throws IllegalArgumentException for an unknown {@code latchkey.} parameter or a bad value
     */
    static JdbcOptions applyParams(String url, JdbcOptions options) {
        JdbcOptions.Builder b = null;
        for (String[] kv : latchkeyParams(url)) {
            if (b == null) {
                b = JdbcOptions.Builder.from(options);
            }
            String value = java.net.URLDecoder.decode(kv[1], java.nio.charset.StandardCharsets.UTF_8);
            switch (kv[0]) {
                case "latchkey.pooling":
                    try {
                        b.pooling(JdbcOptions.Pooling.valueOf(value.toUpperCase(java.util.Locale.ROOT)));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(String.format(
                                "latchkey.pooling must be detect, session or transaction but was '%s'", value), e);
                    }
                    break;
                case "latchkey.listenUrl":
                    b.listenUrl(value);
                    break;
                default:
                    throw new IllegalArgumentException(String.format("unknown parameter %s in %s; the client's own "
                            + "parameters are latchkey.pooling and latchkey.listenUrl", kv[0], redact(url)));
            }
        }
        return b == null ? options : b.build();
    }

    /** {@code url} without its {@code latchkey.} parameters (which the driver must not see). */
    static String withoutParams(String url) {
        int q = url.indexOf('?');
        if (q < 0 || !url.startsWith("jdbc:postgresql:")) {
            return url;
        }
        StringBuilder kept = new StringBuilder();
        for (String p : url.substring(q + 1).split("&")) {
            if (!p.isEmpty() && !p.startsWith(PARAM_PREFIX)) {
                kept.append(kept.length() == 0 ? "" : "&").append(p);
            }
        }
        return url.substring(0, q) + (kept.length() == 0 ? "" : "?" + kept);
    }

    private static java.util.List<String[]> latchkeyParams(String url) {
        java.util.List<String[]> params = new java.util.ArrayList<>();
        int q = url.indexOf('?');
        if (q < 0 || !url.startsWith("jdbc:postgresql:")) {
            return params;
        }
        for (String p : url.substring(q + 1).split("&")) {
            if (p.startsWith(PARAM_PREFIX)) {
                int eq = p.indexOf('=');
                params.add(eq < 0 ? new String[] {p, ""} : new String[] {p.substring(0, eq), p.substring(eq + 1)});
            }
        }
        return params;
    }

    private static int indexOfAny(String s, char a, char b) {
        int i = s.indexOf(a);
        int j = s.indexOf(b);
        if (i < 0) {
            return j;
        }
        return j < 0 ? i : Math.min(i, j);
    }
}
