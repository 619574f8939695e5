package io.latchkey.zookeeper.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The children of a lock path in queue order. Names follow Curator's protected layout,
 * {@code _c_<uuid>-<kind><10-digit sequence>}, and sort by the sequence (as Curator's lock driver does, by what
 * follows the kind), so Curator's {@code InterProcessMutex}/{@code InterProcessReadWriteLock} and ours agree on
 * who is first.
 */
public final class LockNodes {

    /** Curator's protected prefix: {@code _c_} + UUID + {@code -}. */
    public static final String PROTECTED_PREFIX = "_c_";
    public static final String LOCK = "lock-";
    public static final String READ = "__READ__";
    public static final String WRITE = "__WRIT__";

    private static final int SEQUENCE_DIGITS = 10;
    private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(LockNodes::sequencePart);

    private LockNodes() {
    }

    /** The name to create (ZooKeeper appends the sequence) for one attempt with protection id {@code uuid}. */
    public static String protectedName(String uuid, String kind) {
        return PROTECTED_PREFIX + uuid + "-" + kind;
    }

    public static List<String> sorted(List<String> children) {
        List<String> sorted = new ArrayList<>(children);
        sorted.sort(BY_SEQUENCE);
        return sorted;
    }

    static String sequencePart(String node) {
        return node.length() >= SEQUENCE_DIGITS ? node.substring(node.length() - SEQUENCE_DIGITS) : node;
    }

    /** The sequence number ZooKeeper appended, or -1 if the name has none. */
    public static long sequenceNumber(String node) {
        if (node.length() < SEQUENCE_DIGITS) {
            return -1;
        }
        try {
            return Long.parseLong(node.substring(node.length() - SEQUENCE_DIGITS));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static boolean isWriter(String node) {
        return node.contains(WRITE);
    }

    public static boolean isReader(String node) {
        return node.contains(READ);
    }

    /** The child created by the attempt with this protection id, or {@code null}. */
    public static String findProtected(List<String> children, String uuid) {
        String prefix = PROTECTED_PREFIX + uuid + "-";
        for (String c : children) {
            if (c.startsWith(prefix)) {
                return c;
            }
        }
        return null;
    }
}
