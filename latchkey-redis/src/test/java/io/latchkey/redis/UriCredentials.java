package io.latchkey.redis;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;

/** The user and password a parsed {@link RedisURI} carries (Lettuce 7 keeps them behind a credentials provider). */
final class UriCredentials {

    private UriCredentials() {
    }

    static String user(RedisURI uri) {
        RedisCredentials c = uri.getCredentialsProvider().resolveCredentials().block();
        return c == null ? null : c.getUsername();
    }

    /** The password, or {@code null} without one. */
    static String password(RedisURI uri) {
        RedisCredentials c = uri.getCredentialsProvider().resolveCredentials().block();
        return c == null || !c.hasPassword() ? null : new String(c.getPassword());
    }
}
