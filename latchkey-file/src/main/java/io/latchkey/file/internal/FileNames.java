package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Lock name → file name: {@code lk-<SHA-256 of namespace, NUL, name, in lower-case hex>.lock}, and the same hash with
 * the suffix of its kind for the state of a counted primitive ({@code .semaphore}, {@code .permits}, {@code .latch};
 * see {@link CountKind}; a state file is rewritten through {@code <its name>.tmp}). The file name is 72 to 81 ASCII
 * characters of {@code [a-z0-9.-]} whatever the name, so no name can reach outside the directory ({@code ../},
 * separators, NUL, drive letters), exceed a file system's name limit, or collide with another name on a
 * case-insensitive file system. Namespaces and names cannot contain NUL (control characters are refused), so
 * (namespace, name) pairs hash distinct inputs. The original namespace and name are stored inside the file for
 * {@code inspect}.
 */
public final class FileNames {

    /** Prefix of every lock file. */
    public static final String PREFIX = "lk-";
    /** Suffix of every lock file. */
    public static final String SUFFIX = ".lock";
    /** The directory's one bookkeeping file: the fencing-token counter, also the directory-wide mutex. */
    public static final String STATE_FILE = "latchkey.state";
    /** Prefix of the empty file a connect creates and removes at once, to check that the directory is writable. */
    static final String WRITE_PROBE_PREFIX = "latchkey.write-check-";

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private FileNames() {
    }

    /** The file name of lock {@code name} in {@code namespace}. */
    public static String lockFile(String namespace, String name) {
        return PREFIX + hash(namespace, name) + SUFFIX;
    }

    /** The state file of the counted primitive {@code name} of {@code kind} in {@code namespace}. */
    public static String countFile(String namespace, String name, CountKind kind) {
        return PREFIX + hash(namespace, name) + suffix(kind);
    }

    /** The kind of the counted primitive whose state file is {@code fileName}, or {@code null} if it is none. */
    /** The state file suffix of {@code kind}: {@code .semaphore}, {@code .permits} or {@code .latch}. */
    static String suffix(CountKind kind) {
        return "." + kind.label();
    }

    static CountKind countKind(String fileName) {
        for (CountKind kind : CountKind.values()) {
            if (fileName.length() == PREFIX.length() + 64 + suffix(kind).length() && fileName.startsWith(PREFIX)
                    && fileName.endsWith(suffix(kind))) {
                return kind;
            }
        }
        return null;
    }

    /** Whether the directory watcher reports {@code fileName}: a lock file or a counted primitive's state file. */
    static boolean isWatched(String fileName) {
        return isLockFile(fileName) || countKind(fileName) != null;
    }

    private static String hash(String namespace, String name) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        sha.update(namespace.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        byte[] digest = sha.digest(name.getBytes(StandardCharsets.UTF_8));
        StringBuilder b = new StringBuilder(64);
        for (byte x : digest) {
            b.append(HEX[(x >> 4) & 0xf]).append(HEX[x & 0xf]);
        }
        return b.toString();
    }

    /** Whether {@code fileName} is a lock file of this backend (any namespace). */
    public static boolean isLockFile(String fileName) {
        return fileName.length() == PREFIX.length() + 64 + SUFFIX.length() && fileName.startsWith(PREFIX)
                && fileName.endsWith(SUFFIX);
    }
}
