package io.latchkey.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.latchkey.LockHolder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * Key names: {@code latchkey/[<namespace>/]locks/<name>/} is a lock's prefix, and each owner (holding or waiting)
 * is one key below it. Names and namespaces are percent-escaped ({@code %} and {@code /}), so a name is exactly one
 * key segment: no name reaches another lock's keys or outside the namespace.
 */
public final class EtcdKeys {

    private EtcdKeys() {
    }

    public static String escape(String segment) {
        return segment.replace("%", "%25").replace("/", "%2F");
    }

    /** The inverse of {@link #escape}. */
    public static String unescape(String segment) {
        return segment.replace("%2F", "/").replace("%2f", "/").replace("%25", "%");
    }

    // the lines of an owner key's value after the owner id: see value()
    static final String TOKEN = "\ntoken=";
    static final String CLIENT = "\nclient=";
    static final String SINCE = "\nsince=";
    static final String TTL = "\nttl=";

    /**
     * An owner key's value: the owner id; for operators, the client's name and when the key was written (epoch ms by
     * the client's clock: etcd keeps no time); the TTL in seconds of the key's lease if known ({@code ttlSeconds > 0}),
     * so that a waiter knows when the key goes at the latest if its owner dies; and the fencing token where a reader
     * could not derive it from the key's revisions. The token line comes last: earlier readers take it to the end.
     */
    static ByteSequence value(String ownerId, String clientName, long ttlSeconds, long token) {
        StringBuilder b = new StringBuilder(ownerId.length() + clientName.length() + 64).append(ownerId)
                .append(CLIENT).append(clientName).append(SINCE).append(System.currentTimeMillis());
        if (ttlSeconds > 0) {
            b.append(TTL).append(ttlSeconds);
        }
        if (token >= 0) {
            b.append(TOKEN).append(token);
        }
        return bytes(b.toString());
    }

    /** The owner id in an owner key's value. */
    public static String owner(KeyValue kv) {
        String v = string(kv.getValue());
        int nl = v.indexOf('\n');
        return nl < 0 ? v : v.substring(0, nl);
    }

    /**
     * The fencing token of the holder whose key is {@code kv}: the token in its value; else a hand-off's revision (its
     * mod revision, if not its create revision); else its create revision (a lower bound until a token write lands).
     */
    public static long token(KeyValue kv) {
        long token = line(string(kv.getValue()), TOKEN);
        if (token >= 0) {
            return token;
        }
        return kv.getModRevision() != kv.getCreateRevision() ? kv.getModRevision() : kv.getCreateRevision();
    }

    /** {@return the TTL in seconds of the owner key's lease, as its value names it; -1 if it names none} */
    static long ttlSeconds(KeyValue kv) {
        return line(string(kv.getValue()), TTL);
    }

    /** {@return the holding client's name in an owner key's value, or {@code "unknown"} (an older client's key)} */
    public static String clientName(KeyValue kv) {
        String name = field(string(kv.getValue()), CLIENT);
        return name == null || name.isEmpty() ? LockHolder.UNKNOWN_CLIENT : name;
    }

    /** {@return when the owner key was written (by its writer's clock), if its value says} */
    static Optional<Instant> since(KeyValue kv) {
        long since = line(string(kv.getValue()), SINCE);
        return since >= 0 ? Optional.of(Instant.ofEpochMilli(since)) : Optional.empty();
    }

    /** The rest of the line that starts with {@code prefix}, or {@code null}. */
    private static String field(String value, String prefix) {
        int i = value.indexOf(prefix);
        if (i < 0) {
            return null;
        }
        int end = value.indexOf('\n', i + prefix.length());
        return value.substring(i + prefix.length(), end < 0 ? value.length() : end);
    }

    /** The non-negative number on the line that starts with {@code prefix}, or -1. */
    private static long line(String value, String prefix) {
        String field = field(value, prefix);
        try {
            return field == null ? -1 : Math.max(-1, Long.parseLong(field.strip()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static String string(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
