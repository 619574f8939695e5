package io.latchkey.file.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * One critical section over the whole directory, across processes: an exclusive OS lock on
 * {@link FileNames#STATE_FILE}, which also holds the fencing-token counter. Every step that opens, locks, unlocks,
 * writes or deletes a lock file runs inside one — unlocking included: a hold's OS lock freed outside the section lets
 * other processes delete that file and create and lock a new one at its path before the releaser's own section, in
 * which it would then find its unlinked file free and delete the new holder's file — so that
 * <ul>
 *   <li>a lock file is deleted only while nobody else can be between opening it and locking it (the classic
 *       "deleted the file another process is about to lock" race cannot happen: a process opens a lock file only
 *       inside a section and closes it before leaving unless it holds the file's OS lock);</li>
 *   <li>tokens are read, increased and written atomically.</li>
 * </ul>
 * Sections are short (a few system calls). The lock is taken with a blocking {@link FileChannel#lock()} on the
 * directory's own thread; closing the last client interrupts it.
 *
 * <h2>Tokens</h2>
 * {@code next = max(last + 1, wall clock in µs)}, one counter for the whole directory, so state is bounded whatever the
 * names, and tokens are strictly increasing per name because they are for the directory. {@code last} is written to
 * the state file (in place, fixed width) with every token, so every process and every restart of a process sees it
 * (the page cache is shared; no {@code fsync} needed for that). For a power loss, the file also keeps a
 * <em>ceiling</em>, forced to disk ({@code fsync}) before any token above it is handed out and then set a minute of
 * µs ahead, plus the kernel's boot id: the first token after a reboot starts above the durable ceiling, so tokens
 * never repeat even if the last writes never reached the disk and the clock stepped back. That costs one
 * {@code fsync} a minute instead of one per grant. Without a boot id (not Linux) every token is forced to disk. If
 * the state file itself is lost (deleted, a tmpfs directory after a reboot), tokens still grow as long as the clock
 * has not stepped back by more than the time since the last token.
 *
 * <p>Confined to one thread; not reusable.
 */
final class DirectorySection implements AutoCloseable {

    /** How far ahead of the last token the durable ceiling is set: one minute of µs. */
    static final long CEILING_AHEAD_MICROS = 60_000_000L;
    /** The kernel's boot id (Linux), or {@code null}. */
    static final String BOOT_ID = TokenState.bootId();

    private final Path stateFile;
    private FileChannel channel;
    private FileLock lock;
    private TokenState state;

    DirectorySection(Path stateFile) {
        this.stateFile = stateFile;
    }

    /** Enters the section if not yet entered (blocking until other processes leave theirs). */
    DirectorySection enter() throws IOException {
        if (lock == null) {
            channel = FileChannel.open(stateFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            try {
                lock = channel.lock();
            } catch (IOException | RuntimeException e) {
                channel.close();
                channel = null;
                throw e;
            }
        }
        return this;
    }

    /** The next fencing token of the directory; enters the section if needed. */
    long nextToken() throws IOException {
        enter();
        if (state == null) {
            state = TokenState.read(channel);
        }
        String boot = BOOT_ID;
        long base = state.last;
        boolean durable = boot == null || !boot.equals(state.boot);
        if (durable) {
            // a reboot since the ceiling was written (or no boot id): start above everything that may have been issued
            base = Math.max(base, state.ceiling);
        }
        long next = Math.max(base + 1, epochMicros());
        state.last = next;
        if (durable || next > state.ceiling) {
            state.ceiling = next + CEILING_AHEAD_MICROS;
            state.boot = boot;
            state.write(channel);
            channel.force(false);
        } else {
            state.write(channel);
        }
        return next;
    }

    static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Leaves the section. */
    @Override
    public void close() throws IOException {
        if (channel == null) {
            return;
        }
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } finally {
            channel.close();
            channel = null;
            lock = null;
        }
    }

    /**
     * The text of {@link FileNames#STATE_FILE}: fixed width, so that it is rewritten in place (no truncation a crash
     * could leave empty):
     * <pre>
     * latchkey-state 2
     * boot &lt;the kernel's boot id when the ceiling was written, or -&gt;
     * last-token &lt;20 digits&gt;
     * ceiling &lt;20 digits&gt;
     * </pre>
     * See above for what the numbers guarantee. A damaged or foreign file reads as zeros with no
     * boot id (the next token then starts from the clock and is forced to disk).
     */
    static final class TokenState {

        private static final int BOOT_WIDTH = 36;

        long last;
        long ceiling;
        String boot;

        static TokenState read(FileChannel ch) throws IOException {
            TokenState s = new TokenState();
            byte[] bytes = FileNames.readAll(ch, 4096);
            if (bytes == null) {
                return s;
            }
            for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
                try {
                    if (line.startsWith("last-token ")) {
                        s.last = Long.parseLong(line.substring("last-token ".length()).trim());
                    } else if (line.startsWith("ceiling ")) {
                        s.ceiling = Long.parseLong(line.substring("ceiling ".length()).trim());
                    } else if (line.startsWith("boot ")) {
                        String b = line.substring("boot ".length()).trim();
                        s.boot = b.isEmpty() || b.chars().allMatch(c -> c == '-') ? null : b;
                    }
                } catch (NumberFormatException damaged) {
                    return new TokenState();
                }
            }
            return s;
        }

        void write(FileChannel ch) throws IOException {
            String b = boot == null ? "-".repeat(BOOT_WIDTH) : boot;
            if (b.length() < BOOT_WIDTH) {
                b = b + " ".repeat(BOOT_WIDTH - b.length());
            }
            byte[] text = String.format("latchkey-state 2%nboot %s%nlast-token %020d%nceiling %020d%n", b, last,
                    ceiling).replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8);
            FileNames.writeAll(ch, text);
        }

        /** The Linux kernel's boot id, or {@code null} elsewhere. */
        static String bootId() {
            try {
                String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII)
                        .trim();
                return id.isEmpty() || id.length() > BOOT_WIDTH || id.contains(" ") ? null : id;
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }
}
