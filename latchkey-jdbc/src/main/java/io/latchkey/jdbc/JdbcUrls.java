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

    private static int indexOfAny(String s, char a, char b) {
        int i = s.indexOf(a);
        int j = s.indexOf(b);
        if (i < 0) {
            return j;
        }
        return j < 0 ? i : Math.min(i, j);
    }
}
