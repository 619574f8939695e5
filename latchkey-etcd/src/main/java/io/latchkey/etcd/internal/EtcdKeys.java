package io.latchkey.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Key names: {@code latchkey/[<namespace>/]locks/<name>/} is a lock's prefix, and each owner (holding or waiting)
 * is one key below it. Names and namespaces are percent-escaped ({@code %} and {@code /}), so a name is exactly one
 * key segment: no name reaches another lock's keys or outside the namespace.
 */
public final class EtcdKeys {

    private EtcdKeys() {
    }

    public static String escape(String segment) {
        StringBuilder b = new StringBuilder(segment.length() + 8);
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            switch (c) {
                case '%' -> b.append("%25");
                case '/' -> b.append("%2F");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static String string(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
