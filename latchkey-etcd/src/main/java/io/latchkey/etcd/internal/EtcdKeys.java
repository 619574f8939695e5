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

    /** The inverse of {@link #escape}. */
    public static String unescape(String segment) {
        return segment.replace("%2F", "/").replace("%2f", "/").replace("%25", "%");
    }

    /** Prefix of the token line in an owner key's value (after the owner id on the first line). */
    static final String TOKEN = "\ntoken=";

    /**
     * An owner key's value: the owner id, and the holder's fencing token where a reader could not derive it from
     * the key's revisions (a grant from the queue, a key moved to a lease of its own).
     */
    static ByteSequence value(String ownerId, long token) {
        return bytes(token < 0 ? ownerId : ownerId + TOKEN + token);
    }

    /** The owner id in an owner key's value. */
    public static String owner(io.etcd.jetcd.KeyValue kv) {
        String v = string(kv.getValue());
        int nl = v.indexOf('\n');
        return nl < 0 ? v : v.substring(0, nl);
    }

    /**
     * The fencing token of the holder whose key is {@code kv}: the token written into its value; else the revision
     * of the write that handed it over (its mod revision, when that differs from its create revision); else its
     * create revision (taken without waiting). For the few milliseconds until a queued grant's token write lands,
     * the create revision is a lower bound of the token.
     */
    public static long token(io.etcd.jetcd.KeyValue kv) {
        String v = string(kv.getValue());
        int i = v.indexOf(TOKEN);
        if (i >= 0) {
            try {
                return Long.parseLong(v.substring(i + TOKEN.length()).strip());
            } catch (NumberFormatException e) {
                // fall through to the revisions
            }
        }
        return kv.getModRevision() != kv.getCreateRevision() ? kv.getModRevision() : kv.getCreateRevision();
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static String string(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
