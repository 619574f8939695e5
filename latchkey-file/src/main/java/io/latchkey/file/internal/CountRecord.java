package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The text of a counted primitive's state file ({@link FileNames#countFile}), for the backend and for operators
 * ({@code cat} works). UTF-8 lines:
 * <pre>
 * latchkey-count 1
 * kind &lt;semaphore | permits | latch&gt;
 * namespace &lt;namespace&gt;
 * name &lt;name&gt;
 * count &lt;available permits | total permits | the latch's count&gt;
 * lease &lt;token&gt; &lt;lease end, epoch ms&gt; &lt;watchdog | fixed&gt; &lt;permit id&gt;     one per held permit (permits only)
 * end
 * </pre>
 * Names and namespaces contain no control characters; a permit id is the last field, with {@code %}, CR and LF
 * percent-escaped. A file is replaced whole: written to {@code <file>.tmp} and renamed over the state file, so a
 * reader sees the old text or the new one, never a mix (a process killed mid-write leaves at most the temporary
 * file, overwritten by the next write). A file without its {@code end} line (a power loss before the data reached
 * the disk) is refused as damaged rather than guessed. Mutable; confined to one thread.
 */
final class CountRecord {

    static final String MAGIC = "latchkey-count 1";

    /** One held permit of a permit-expirable semaphore. */
    record Lease(String permitId, long token, long endMillis, boolean watchdog) {
    }

    final CountKind kind;
    final String namespace;
    final String name;
    long count;
    final List<Lease> leases = new ArrayList<>();

    CountRecord(CountKind kind, String namespace, String name, long count) {
        this.kind = kind;
        this.namespace = namespace;
        this.name = name;
        this.count = count;
    }

    /** The lease of {@code permitId}, or {@code null}. */
    Lease lease(String permitId) {
        for (Lease l : leases) {
            if (l.permitId.equals(permitId)) {
                return l;
            }
        }
        return null;
    }

    /** Replaces {@code lease} with one of the same permit and token that ends at {@code endMillis}. */
    void extend(Lease lease, long endMillis, boolean watchdog) {
        leases.set(leases.indexOf(lease), new Lease(lease.permitId, lease.token, endMillis, watchdog));
    }

    /** Drops the leases that ended at or before {@code nowMillis}; whether any did. */
    boolean dropExpired(long nowMillis) {
        return leases.removeIf(l -> l.endMillis <= nowMillis);
    }

    /** The earliest lease end, or {@link Long#MAX_VALUE} without leases. */
    long earliestLeaseEnd() {
        return leases.stream().mapToLong(Lease::endMillis).min().orElse(Long.MAX_VALUE);
    }

    /**
     * For a permit-expirable semaphore: the total less the leases (below 0 after {@code addPermits} of a negative
     * number, as on every backend); otherwise the count.
     */
    long available() {
        return kind == CountKind.PERMITS ? count - leases.size() : count;
    }

    /** The record in {@code path}, or {@code null} if there is no such file. */
    static CountRecord read(Path path) throws IOException {
        byte[] bytes;
        try {
            if (Files.size(path) > 16 << 20) {
                throw new IOException(path + " is too large to be a latchkey state file");
            }
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException absent) {
            return null;
        }
        return parse(path, bytes);
    }

    static CountRecord parse(Path path, byte[] bytes) throws IOException {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
        if (lines.length < 6 || !lines[0].equals(MAGIC) || !lines[lines.length - 1].equals("end")) {
            throw damaged(path, "not a complete latchkey-count file");
        }
        CountKind kind = null;
        String namespace = null;
        String name = null;
        Long count = null;
        List<Lease> leases = new ArrayList<>();
        for (int i = 1; i < lines.length - 1; i++) {
            String line = lines[i];
            try {
                if (line.startsWith("kind ")) {
                    kind = CountKind.ofLabel(line.substring("kind ".length()));
                } else if (line.startsWith("namespace ")) {
                    namespace = line.substring("namespace ".length());
                } else if (line.startsWith("name ")) {
                    name = line.substring("name ".length());
                } else if (line.startsWith("count ")) {
                    count = Long.parseLong(line.substring("count ".length()));
                } else if (line.startsWith("lease ")) {
                    String[] f = line.split(" ", 5);
                    if (f.length != 5 || !(f[3].equals("watchdog") || f[3].equals("fixed"))) {
                        throw damaged(path, "bad line '" + line + "'");
                    }
                    leases.add(new Lease(unescape(f[4]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                            f[3].equals("watchdog")));
                }
            } catch (NumberFormatException e) {
                throw damaged(path, "bad number in '" + line + "'");
            }
        }
        if (kind == null || namespace == null || name == null || count == null) {
            throw damaged(path, "a line is missing");
        }
        CountRecord r = new CountRecord(kind, namespace, name, count);
        r.leases.addAll(leases);
        return r;
    }

    private static IOException damaged(Path path, String why) {
        return new IOException(String.format("state file %s is damaged (%s); delete it to reset that primitive",
                path, why));
    }

    byte[] format() {
        StringBuilder b = new StringBuilder(128 + 64 * leases.size()).append(MAGIC).append('\n');
        b.append("kind ").append(kind.label()).append('\n');
        b.append("namespace ").append(namespace).append('\n');
        b.append("name ").append(name).append('\n');
        b.append("count ").append(count).append('\n');
        for (Lease l : leases) {
            b.append("lease ").append(l.token).append(' ').append(l.endMillis).append(' ')
                    .append(l.watchdog ? "watchdog" : "fixed").append(' ').append(escape(l.permitId)).append('\n');
        }
        return b.append("end\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Replaces the file at {@code path} with this record: a temporary file renamed over it. */
    void write(Path path) throws IOException {
        FileNames.replace(path, format());
    }

    static String escape(String s) {
        return s.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D");
    }

    /** The inverse of {@link #escape}: every {@code %} it wrote starts {@code %25}, so {@code %25} goes last. */
    static String unescape(String s) {
        return s.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%");
    }
}
