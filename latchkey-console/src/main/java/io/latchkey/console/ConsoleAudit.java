package io.latchkey.console;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The console's audit log of force-unlocks: who (the access token's label, or {@code local} without tokens), when,
 * which lock, token and holder, and from which address. The last {@link #KEPT} entries are kept in memory for the
 * page; with a file every entry is also appended to it, one line each, before the page shows it; with a sink (the
 * application's log) every line is also handed to it.
 */
final class ConsoleAudit {

    /** How many entries the page shows. */
    static final int KEPT = 200;

    /** One force-unlock. {@code outcome} is {@code released}, {@code not held} or {@code failed: reason}. */
    record Entry(Instant at, String who, String remote, String lock, String token, String holder, String outcome) {

        /** The line written to the audit file: tab-separated, each field without tabs or line breaks. */
        String line() {
            return String.join("\t", at.toString(), clean(who), clean(remote), "force-unlock", clean(lock),
                    "token=" + clean(token), "holder=" + clean(holder), clean(outcome));
        }

        private static String clean(String s) {
            StringBuilder b = new StringBuilder(s.length());
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                b.append(Character.isISOControl(c) || c == 0x2028 || c == 0x2029 ? '?' : c);
            }
            return b.toString();
        }
    }

    private final Path file;
    private final Consumer<String> sink;
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Entry> entries = new ArrayDeque<>();

    /** @param file the file entries are appended to, or null to keep them in memory only */
    ConsoleAudit(Path file) {
        this(file, null);
    }

    /**
     * @param file the file entries are appended to, or null
     * @param sink what else receives each entry's line (the application's log), or null
     */
    ConsoleAudit(Path file, Consumer<String> sink) {
        this.file = file;
        this.sink = sink;
    }

    /** Checks that the audit file can be appended to, so that the console does not start with a broken log. */
    void checkWritable() throws IOException {
        if (file != null) {
            Files.write(file, new byte[0], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    /**
     * Records {@code entry}: first in the file (if any), then in memory.
     *
     * @throws IOException if the file cannot be written; the entry is then still kept in memory
     */
    void record(Entry entry) throws IOException {
        IOException failure = null;
        lock.lock();
        try {
            if (file != null) {
                try {
                    Files.writeString(file, entry.line() + System.lineSeparator(), StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                } catch (IOException e) {
                    failure = e;
                }
            }
            entries.addFirst(entry);
            while (entries.size() > KEPT) {
                entries.removeLast();
            }
        } finally {
            lock.unlock();
        }
        if (sink != null) {
            sink.accept(entry.line());
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The kept entries, newest first. */
    List<Entry> entries() {
        lock.lock();
        try {
            return new ArrayList<>(entries);
        } finally {
            lock.unlock();
        }
    }
}
