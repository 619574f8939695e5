package io.latchkey.file.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * One critical section over the whole directory, across processes: an exclusive OS lock on
 * {@link FileNames#STATE_FILE}, which also holds the fencing-token counter. Every step that opens, locks, writes or
 * deletes a lock file runs inside one, so that
 * <ul>
 *   <li>a lock file is deleted only while nobody else can be between opening it and locking it (the classic
 *       "deleted the file another process is about to lock" race cannot happen: a process opens a lock file only
 *       inside a section and closes it before leaving unless it holds the file's OS lock);</li>
 *   <li>tokens are read, increased and written atomically.</li>
 * </ul>
 * Sections are short (a few system calls, one {@code fsync} when a token was issued). The lock is taken with a
 * blocking {@link FileChannel#lock()} on the directory's own thread; closing the client interrupts it.
 *
 * <h2>Tokens</h2>
 * {@code next = max(last + 1, wall clock in µs)}, written and forced to disk ({@code fsync}) before the grant is handed out. One
 * counter for the directory, so state is bounded whatever the names; strictly increasing per name because it is
 * strictly increasing for the whole directory. The persisted {@code last} keeps it increasing across restarts of
 * every process and across a wall clock that steps back; the clock term keeps it increasing even if the state file
 * is lost (deleted, or a crash before the fsync reached the disk), as long as the clock has not stepped back by
 * more than the time since the last token. Confined to one thread; not reusable.
 */
final class DirectorySection implements AutoCloseable {

    private final Path stateFile;
    private final boolean syncTokens;
    private FileChannel channel;
    private FileLock lock;
    private long last = -1;

    DirectorySection(Path stateFile, boolean syncTokens) {
        this.stateFile = stateFile;
        this.syncTokens = syncTokens;
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

    boolean entered() {
        return lock != null;
    }

    /** The next fencing token of the directory; enters the section if needed. */
    long nextToken() throws IOException {
        enter();
        if (last < 0) {
            last = readLast();
        }
        long next = Math.max(last + 1, epochMicros());
        byte[] text = ("latchkey-state 1\nlast-token " + next + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(text.length);
        ByteBuffer buf = ByteBuffer.wrap(text);
        long pos = 0;
        while (buf.hasRemaining()) {
            pos += channel.write(buf, pos);
        }
        if (syncTokens) {
            channel.force(false);
        }
        last = next;
        return next;
    }

    private long readLast() throws IOException {
        long size = channel.size();
        if (size == 0 || size > 4096) {
            return 0;
        }
        ByteBuffer buf = ByteBuffer.allocate((int) size);
        while (buf.hasRemaining() && channel.read(buf, buf.position()) >= 0) {
            // read all
        }
        for (String line : new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("last-token ")) {
                try {
                    return Long.parseLong(line.substring("last-token ".length()).trim());
                } catch (NumberFormatException damaged) {
                    return 0;
                }
            }
        }
        return 0;
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
}
