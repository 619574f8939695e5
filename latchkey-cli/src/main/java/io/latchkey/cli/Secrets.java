package io.latchkey.cli;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps passwords out of everything the command prints. Two layers, because drivers echo URIs in their own ways:
 * URI-shaped text is rewritten ({@code user:secret@host}, {@code password=secret}), and every password seen in a URI
 * the user gave us is remembered and replaced wherever it turns up (a driver may print it decoded or alone).
 */
final class Secrets {

    static final String MASK = "****";

    private static final Pattern USER_INFO_WITH_PASSWORD =
            Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/@:\\s]*):([^@/\\s]+)@");
    // Lettuce reads redis://secret@host as a password without a user name, so a bare user-info is a secret there.
    private static final Pattern REDIS_BARE_USER_INFO =
            Pattern.compile("(?i)(rediss?(?:-sentinel|-cluster)?://)([^/@:\\s]+)@");
    private static final Pattern PASSWORD_PARAMETER =
            Pattern.compile("(?i)\\b(password|passwd|pwd|pass|secret)=([^&;,\\s]+)");

    private static final Set<String> KNOWN = ConcurrentHashMap.newKeySet();

    private Secrets() {
    }

    /** Remembers the passwords inside {@code uri} so that {@link #mask} hides them in any text, and returns it. */
    static String register(String uri) {
        if (uri == null) {
            return null;
        }
        Matcher m = USER_INFO_WITH_PASSWORD.matcher(uri);
        while (m.find()) {
            remember(m.group(3));
        }
        m = REDIS_BARE_USER_INFO.matcher(uri);
        while (m.find()) {
            remember(m.group(2));
        }
        m = PASSWORD_PARAMETER.matcher(uri);
        while (m.find()) {
            remember(m.group(2));
        }
        return uri;
    }

    private static void remember(String secret) {
        // Very short secrets would blank out unrelated characters; the URI patterns still catch them in URIs.
        if (secret.length() >= 3 && !secret.equals(MASK)) {
            KNOWN.add(secret);
            try {
                KNOWN.add(URLDecoder.decode(secret, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException malformedEscape) {
                // keep only the raw form
            }
        }
    }

    /** {@code text} with every password it may contain replaced by {@value #MASK}. */
    static String mask(String text) {
        if (text == null) {
            return null;
        }
        String out = USER_INFO_WITH_PASSWORD.matcher(text).replaceAll("$1$2:" + MASK + "@");
        out = REDIS_BARE_USER_INFO.matcher(out).replaceAll("$1" + MASK + "@");
        out = PASSWORD_PARAMETER.matcher(out).replaceAll("$1=" + MASK);
        for (String secret : KNOWN) {
            out = out.replace(secret, MASK);
        }
        return out;
    }
}
