package io.latchkey;

import java.net.InetAddress;
import java.util.Objects;

/** The default {@link ClientOptions#clientName()}, {@code host:pid}, looked up once per JVM when first asked. */
final class DefaultClientName {

    static final String VALUE = compute();

    private DefaultClientName() {
    }

    private static String compute() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception | LinkageError e) {
            host = null;
        }
        if (host == null || host.isBlank()) {
            host = System.getenv("HOSTNAME");
        }
        String name = sanitize(host == null || host.isBlank() ? "localhost" : host);
        String pid = Long.toString(ProcessHandle.current().pid());
        int room = 128 - 1 - pid.length();
        return (name.length() > room ? name.substring(0, room) : name) + ":" + pid;
    }

    /** A host name as a valid client name: control characters and lone surrogates become {@code ?}. */
    private static String sanitize(String host) {
        StringBuilder b = new StringBuilder(host.length());
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < host.length()
                    && Character.isLowSurrogate(host.charAt(i + 1));
            if (pair) {
                b.append(c).append(host.charAt(++i));
            } else {
                b.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '?' : c);
            }
        }
        return b.toString();
    }

    /** Checks a client name given by the user; see {@link ClientOptions.Builder#clientName(String)}. */
    static String check(String clientName) {
        Objects.requireNonNull(clientName, "clientName");
        if (clientName.isEmpty() || clientName.length() > 128) {
            throw new IllegalArgumentException(String.format(
                    "clientName must be 1 to 128 characters but was %d", clientName.length()));
        }
        for (int i = 0; i < clientName.length(); i++) {
            char c = clientName.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(String.format(
                        "clientName must not contain control characters but had U+%04X at index %d", (int) c, i));
            }
            if (Character.isHighSurrogate(c) && i + 1 < clientName.length()
                    && Character.isLowSurrogate(clientName.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(String.format(
                        "clientName must be well-formed UTF-16 but had a lone surrogate U+%04X at index %d", (int) c, i));
            }
        }
        return clientName;
    }
}
