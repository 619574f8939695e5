package io.latchkey.file.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The text inside a lock file: who holds the lock and who queues for it, for contenders, {@code inspect} and
 * operators ({@code cat} works). UTF-8 lines:
 * <pre>
 * latchkey-file 1
 * namespace &lt;namespace&gt;
 * name &lt;lock name&gt;
 * hold &lt;process&gt; &lt;kind&gt; &lt;token&gt; &lt;lease end, epoch ms&gt; &lt;owner&gt;     one per hold
 * holder &lt;token&gt; &lt;since, epoch ms&gt; &lt;client name&gt;                  after its hold line: who holds it
 * wait &lt;process&gt; &lt;ticket&gt; &lt;refreshed, epoch ms&gt; &lt;owner&gt;           one per queued fair waiter
 * revoke &lt;process&gt;                                                   force-unlock request to a holder process
 * </pre>
 * Names and namespaces contain no control characters, so a line break cannot be smuggled in; an owner is the last
 * field and may contain spaces, as may a client name. A reader that does not know {@code holder} lines skips them.
 * Only {@code wait} (the fair queue across processes) and {@code revoke} lines act: exclusion is the OS lock.
 */
final class LockFileRecord {

    static final String MAGIC = "latchkey-file 1";

    /** One hold; {@code clientName} is {@code null} (and {@code sinceMillis} 0) if its {@code holder} line is missing. */
    record HoldLine(String process, String kind, long token, long leaseEndMillis, String owner, String clientName,
                    long sinceMillis) {
    }

    record WaitLine(String process, long ticket, long refreshedMillis, String owner) {
    }

    String namespace;
    String name;
    final List<HoldLine> holds = new ArrayList<>();
    final List<WaitLine> waits = new ArrayList<>();
    final List<String> revokes = new ArrayList<>();

    LockFileRecord(String namespace, String name) {
        this.namespace = namespace;
        this.name = name;
    }

    /** Parses a file's bytes; unknown or damaged lines are skipped (a torn write of a crashed process). */
    static LockFileRecord parse(byte[] bytes) {
        LockFileRecord r = new LockFileRecord(null, null);
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            try {
                if (line.startsWith("namespace ")) {
                    r.namespace = line.substring("namespace ".length());
                } else if (line.startsWith("name ")) {
                    r.name = line.substring("name ".length());
                } else if (line.startsWith("hold ")) {
                    String[] f = line.split(" ", 6);
                    if (f.length == 6) {
                        r.holds.add(new HoldLine(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]), f[5], null, 0));
                    }
                } else if (line.startsWith("holder ")) {
                    String[] f = line.split(" ", 4);
                    int last = r.holds.size() - 1;
                    if (f.length == 4 && last >= 0 && r.holds.get(last).token() == Long.parseLong(f[1])) {
                        HoldLine h = r.holds.get(last);
                        r.holds.set(last, new HoldLine(h.process(), h.kind(), h.token(), h.leaseEndMillis(), h.owner(),
                                f[3], Long.parseLong(f[2])));
                    }
                } else if (line.startsWith("wait ")) {
                    String[] f = line.split(" ", 5);
                    if (f.length == 5) {
                        r.waits.add(new WaitLine(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), f[4]));
                    }
                } else if (line.startsWith("revoke ")) {
                    r.revokes.add(line.substring("revoke ".length()));
                }
            } catch (NumberFormatException damaged) {
                // skipped
            }
        }
        return r;
    }

    byte[] format() {
        StringBuilder b = new StringBuilder(256).append(MAGIC).append('\n');
        b.append("namespace ").append(namespace == null ? "" : namespace).append('\n');
        b.append("name ").append(name == null ? "" : name).append('\n');
        for (HoldLine h : holds) {
            b.append("hold ").append(h.process).append(' ').append(h.kind).append(' ').append(h.token).append(' ')
                    .append(h.leaseEndMillis).append(' ').append(h.owner).append('\n');
            if (h.clientName != null) {
                b.append("holder ").append(h.token).append(' ').append(h.sinceMillis).append(' ').append(h.clientName)
                        .append('\n');
            }
        }
        for (WaitLine w : waits) {
            b.append("wait ").append(w.process).append(' ').append(w.ticket).append(' ').append(w.refreshedMillis)
                    .append(' ').append(w.owner).append('\n');
        }
        for (String p : revokes) {
            b.append("revoke ").append(p).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Drops every line written by {@code process}. */
    void removeProcess(String process) {
        holds.removeIf(h -> h.process.equals(process));
        waits.removeIf(w -> w.process.equals(process));
        revokes.removeIf(p -> p.equals(process));
    }

    /** Wait lines of other processes refreshed after {@code staleBefore} (epoch ms). */
    List<WaitLine> liveWaitsOfOthers(String process, long staleBefore) {
        return waits.stream().filter(w -> !w.process.equals(process) && w.refreshedMillis > staleBefore).toList();
    }

    /** Reads the record of the file open in {@code ch}. */
    static LockFileRecord read(FileChannel ch) throws IOException {
        byte[] bytes = FileNames.readAll(ch, 1 << 20);
        if (bytes == null) {
            throw new IOException("lock file of " + ch.size() + " bytes: not a latchkey lock file");
        }
        return parse(bytes);
    }

    /** Replaces the text of the file open in {@code ch} with this record. */
    void write(FileChannel ch) throws IOException {
        byte[] bytes = format();
        ch.truncate(0);
        FileNames.writeAll(ch, bytes);
    }
}
