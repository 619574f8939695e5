package io.latchkey.zookeeper.internal;

import java.nio.charset.StandardCharsets;

/**
 * Maps a lock name (or namespace) to exactly one znode name. Anything outside a small safe set is
 * percent-encoded from its UTF-8 bytes, so {@code /}, control characters and the characters ZooKeeper rejects can
 * never split a name into several path segments; a name made only of dots is encoded too, so {@code .} and
 * {@code ..} cannot address the parent. The mapping is injective: {@code %} itself is encoded.
 */
public final class ZNodeNames {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final String SAFE = "-_.:=@+,~!#$&'()*;[]";

    private ZNodeNames() {
    }

    /** The single znode name for {@code name}. */
    public static String escape(String name) {
        boolean onlyDots = !name.isEmpty() && name.chars().allMatch(c -> c == '.');
        StringBuilder out = new StringBuilder(name.length() + 8);
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (!onlyDots && isSafe(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    private static boolean isSafe(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || SAFE.indexOf(c) >= 0;
    }

    /** Inverse of {@link #escape}, for tools that list lock paths. */
    public static String unescape(String znode) {
        byte[] out = new byte[znode.length()];
        int n = 0;
        for (int i = 0; i < znode.length(); i++) {
            char c = znode.charAt(i);
            if (c == '%' && i + 2 < znode.length()) {
                out[n++] = (byte) Integer.parseInt(znode.substring(i + 1, i + 3), 16);
                i += 2;
            } else {
                out[n++] = (byte) c;
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }
}
