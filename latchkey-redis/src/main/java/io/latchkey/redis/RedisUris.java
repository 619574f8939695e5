package io.latchkey.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * Parses {@code redis://[user:password@]host[:port][/db]} and {@code rediss://…} (TLS) URIs, and keeps passwords out
 * of every message about them.
 */
final class RedisUris {

    private RedisUris() {
    }

    /**
     * @throws IllegalArgumentException if the URI is malformed; the message shows it with its credentials masked
     */
    static RedisURI parse(String uri, Duration operationTimeout) {
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(String.format("malformed Redis URI '%s': %s", redact(uri),
                    redactIn(e.getMessage(), uri)));
        }
        if (parsed.getHost() == null || parsed.getHost().isEmpty()) {
            throw new IllegalArgumentException(String.format("Redis URI '%s' has no host", redact(uri)));
        }
        parsed.setTimeout(operationTimeout);
        return parsed;
    }

    /** {@code host:port}, what messages name the server by. */
    static String address(RedisURI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }

    /** The URI with the user-info part (user and password) replaced by {@code ***}. */
    static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        if (at >= start) {
            return uri.substring(0, start) + "***" + uri.substring(at);
        }
        return uri;
    }

    private static String redactIn(String message, String uri) {
        if (message == null) {
            return "";
        }
        String out = message.replace(uri, redact(uri));
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (scheme >= 0 && at > scheme + 3) {
            String userInfo = uri.substring(scheme + 3, at);
            if (!userInfo.isEmpty()) {
                out = out.replace(userInfo, "***");
            }
            int colon = userInfo.indexOf(':');
            if (colon >= 0 && colon + 1 < userInfo.length()) {
                out = out.replace(userInfo.substring(colon + 1), "***");
            }
        }
        return out;
    }
}
