package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

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

    /** The state file suffix of {@code kind}: {@code .semaphore}, {@code .permits} or {@code .latch}. */
    static String suffix(CountKind kind) {
        return "." + kind.label();
    }

    /** The kind of the counted primitive whose state file is {@code fileName}, or {@code null} if it is none. */
    static CountKind countKind(String fileName) {
        for (CountKind kind : CountKind.values()) {
            if (fileName.length() == PREFIX.length() + 64 + suffix(kind).length() && fileName.startsWith(PREFIX)
                    && fileName.endsWith(suffix(kind))) {
                return kind;
            }
        }
        return null;
    }

    /** The hash of a lock file's name (and of its store directory): {@code lk-<this>.lock}. */
    static String hash(String namespace, String name) {
        return sha256(namespace, "\u0000", name);
    }

    /** The SHA-256 of the UTF-8 bytes of {@code parts}, in lower-case hex. */
    static String sha256(String... parts) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        for (String part : parts) {
            sha.update(part.getBytes(StandardCharsets.UTF_8));
        }
        StringBuilder b = new StringBuilder(64);
        for (byte x : sha.digest()) {
            b.append(HEX[(x >> 4) & 0xf]).append(HEX[x & 0xf]);
        }
        return b.toString();
    }

    /** The content of the file open in {@code ch}, or {@code null} if it is larger than {@code max} bytes. */
    static byte[] readAll(FileChannel ch, long max) throws IOException {
        long size = ch.size();
        if (size > max) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.allocate((int) size);
        while (buf.hasRemaining() && ch.read(buf, buf.position()) >= 0) {
            // until the end
        }
        return Arrays.copyOf(buf.array(), buf.position());
    }

    /** Writes {@code bytes} at the start of the file open in {@code ch} and cuts off whatever followed. */
    static void writeAll(FileChannel ch, byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        long pos = 0;
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
        if (ch.size() > bytes.length) {
            ch.truncate(bytes.length);
        }
    }

    /**
     * Replaces the file at {@code path} with {@code bytes}: written to {@code <file>.tmp} beside it and renamed over
     * it, so that a reader sees the old content or the new one, never a mix.
     */
    static void replace(Path path, byte[] bytes) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.write(tmp, bytes);
        try {
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The names of the files in {@code dir} that {@code wanted} accepts, sorted. */
    static List<String> list(Path dir, Predicate<String> wanted) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(wanted).sorted().toList();
        }
    }

    /** Whether {@code fileName} is a lock file of this backend (any namespace). */
    public static boolean isLockFile(String fileName) {
        return fileName.length() == PREFIX.length() + 64 + SUFFIX.length() && fileName.startsWith(PREFIX)
                && fileName.endsWith(SUFFIX);
    }
}
