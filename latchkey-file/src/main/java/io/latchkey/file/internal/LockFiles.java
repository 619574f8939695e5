package io.latchkey.file.internal;

import io.latchkey.core.ArbitratedLockOps.Kind;
import io.latchkey.core.NameArbiter;
import io.latchkey.file.internal.LockEntry.FileGrantState;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock files of a directory and their OS locks, as this JVM touches them: taking and dropping the OS lock that
 * backs this JVM's holds of a name, writing this JVM's hold and wait lines ({@link LockFileRecord}) beside other
 * processes' live ones, deleting a file nobody holds or queues in, reading another process's holds and fair-queue
 * tickets, and asking another process to end its holds (a revoke line). Every method runs on the directory's thread
 * and enters the directory section first where the file's identity matters (see {@link DirectorySection}).
 */
final class LockFiles {
    private static final Logger log = LoggerFactory.getLogger(LockFiles.class);

    /**
     * The byte whose OS lock is the hold: 1 GiB into the file, far past its text, so that the text stays readable
     * where locks are mandatory (Windows), and below 2^31 for NFS lock managers with 32-bit offsets.
     */
    static final long LOCK_POSITION = 1L << 30;
    /** A fair waiter's wait line not refreshed for this long belongs to a dead or frozen process and is ignored. */
    static final long STALE_TICKET_MILLIS = 3_000;

    private final Path dir;
    /** Tags this JVM's lines in lock files: {@code <pid>-<8 random hex>}. */
    private final String process;

    LockFiles(Path dir, String process) {
        this.dir = dir;
        this.process = process;
    }

    /**
     * Matches the OS lock of {@code e} to its holds: released once no hold is left, turned shared once only read
     * holds are left (a downgrade). Inside the directory section.
     *
     * @return whether the OS lock changed (the file is to be rewritten)
     */
    boolean matchOsLock(LockEntry e, DirectorySection s) throws IOException {
        if (e.holds().isEmpty() && e.osLock != null) {
            // Inside the directory section, like every tryLock and delete: released outside it, another process
            // could lock this file, release it and delete it, and a third create and lock a new file at the path,
            // all before our sync() below enters the section; our probe of the old, unlinked file would then succeed
            // and sync() would delete the third process's file, letting a fourth create and lock another one while
            // the third still holds: two holders (a lost update seen under load in CI).
            s.enter();
            e.osLock.release();
            e.osLock = null;
            return true;
        }
        if (!e.holds().isEmpty() && e.exclusiveOwner() == null && e.osLock != null && !e.osLock.isShared()) {
            // the write hold ended, a downgraded read remains: exclusive → shared. Inside the directory section no
            // other process can lock the file between the two steps.
            s.enter();
            e.osLock.release();
            e.osLock = e.channel.tryLock(LOCK_POSITION, 1, true);
            if (e.osLock == null) {
                throw new IOException("could not turn the exclusive lock of " + e.path + " into a shared one");
            }
            return true;
        }
        return false;
    }

    /** Opens the file if needed and tries its OS lock; inside the directory section. */
    boolean lock(LockEntry e, boolean shared, DirectorySection s) throws IOException {
        s.enter();
        if (e.channel != null && e.osLock == null) {
            // A channel kept from this JVM's previous hold may name a file that no longer exists: our OS lock was
            // released (in matchOsLock, before this task entered the section), and while we waited for the section
            // another process could lock that file, finish, and delete it. Locking the unlinked file would succeed
            // beside the holder of the path's new file: two holders. Inside the section the path names the current
            // file (deletes happen inside it), so reopen from the path. Closing drops no lock of ours: this JVM
            // holds none on that file.
            closeChannel(e);
        }
        if (e.channel == null) {
            e.channel = FileChannel.open(e.path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }
        FileLock lock;
        try {
            lock = e.channel.tryLock(LOCK_POSITION, 1, shared);
        } catch (IOException | RuntimeException ex) {
            closeChannel(e);
            throw ex;
        }
        if (lock == null) {
            closeChannel(e);
            return false;
        }
        e.osLock = lock;
        return true;
    }

    /**
     * Whether another process's live wait line queues before the fair waiter with {@code ticket} (any line, for 0: one
     * that has none yet); inside the section.
     */
    boolean earlierTicketElsewhere(LockEntry e, long ticket, DirectorySection s) throws IOException {
        s.enter();
        LockFileRecord r = read(e);
        if (r == null) {
            return false;
        }
        long staleBefore = System.currentTimeMillis() - STALE_TICKET_MILLIS;
        for (LockFileRecord.WaitLine line : r.liveWaitsOfOthers(process, staleBefore)) {
            if (ticket == 0 || line.ticket() < ticket) {
                return true;
            }
        }
        return false;
    }

    /**
     * Writes this JVM's lines for {@code e} into its file, keeping other processes' live lines; deletes the file
     * when nobody holds it (its OS lock is free) and nobody queues in it. Closes the channel once this JVM holds
     * nothing. Inside the directory section.
     */
    void sync(LockEntry e, DirectorySection s) throws IOException {
        s.enter();
        if (e.channel != null && e.osLock == null) {
            // As in lock: a channel we hold no lock through may name a file another process has deleted since;
            // probing it would succeed and then delete the path's NEW file, which someone may hold.
            closeChannel(e);
        }
        boolean temporary = e.channel == null;
        FileChannel ch = e.channel;
        if (temporary) {
            boolean ours = !e.holds().isEmpty() || e.hasTickets();
            if (!ours && !Files.exists(e.path)) {
                return;
            }
            ch = FileChannel.open(e.path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }
        try {
            LockFileRecord r = LockFileRecord.read(ch);
            r.namespace = e.namespace;
            r.name = e.name;
            r.removeProcess(process);
            long nowMillis = System.currentTimeMillis();
            r.waits.removeIf(line -> line.refreshedMillis() <= nowMillis - STALE_TICKET_MILLIS);
            r.holds.removeIf(line -> line.leaseEndMillis() <= nowMillis);
            if (e.osLock != null && !e.osLock.isShared()) {
                r.holds.clear(); // we hold it exclusively: every other hold line is a dead process's
                r.revokes.clear();
            } else if (e.osLock != null) {
                r.holds.removeIf(line -> !line.kind().equals(Kind.READ.label())); // only readers can be alive
            }
            for (FileGrantState h : e.holds()) {
                r.holds.add(new LockFileRecord.HoldLine(process, h.client.kind().label(), h.token(),
                        h.leaseEndMillis(nowMillis), h.owner(), h.clientName(), h.sinceMillis()));
            }
            for (java.util.Map.Entry<String, NameArbiter.Waiting> q : e.queue().entrySet()) {
                if (q.getValue().ticket() != 0) {
                    r.waits.add(new LockFileRecord.WaitLine(process, q.getValue().ticket(), nowMillis, q.getKey()));
                }
            }
            e.ticketsWrittenMillis = nowMillis;
            if (e.osLock == null) {
                FileLock probe = ch.tryLock(LOCK_POSITION, 1, false);
                if (probe != null) {
                    try {
                        if (r.waits.isEmpty()) {
                            Files.deleteIfExists(e.path);
                            return;
                        }
                        r.holds.clear();
                        r.revokes.clear();
                    } finally {
                        probe.release();
                    }
                }
            }
            r.write(ch);
        } finally {
            if (temporary) {
                ch.close();
            } else if (e.osLock == null) {
                closeChannel(e);
            }
        }
    }

    /**
     * The record of {@code file} if another process holds its OS lock, else {@code null}; a file nobody holds or
     * queues in, and that this JVM does not track ({@code tracked}), is deleted on the way (left by a crashed
     * holder). Inside the directory section.
     */
    LockFileRecord heldElsewhere(String file, boolean tracked, DirectorySection s) throws IOException {
        s.enter();
        Path path = dir.resolve(file);
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException gone) {
            return null;
        }
        try (ch) {
            FileLock probe = ch.tryLock(LOCK_POSITION, 1, false);
            if (probe == null) {
                return LockFileRecord.read(ch);
            }
            try {
                LockFileRecord r = LockFileRecord.read(ch);
                long staleBefore = System.currentTimeMillis() - STALE_TICKET_MILLIS;
                if (r.liveWaitsOfOthers(process, staleBefore).isEmpty() && !tracked) {
                    Files.deleteIfExists(path); // left by a crashed holder
                }
            } finally {
                probe.release();
            }
            return null;
        }
    }

    /**
     * Asks the other processes that hold {@code file} (per {@code record}, read by {@link #heldElsewhere}) to end
     * their holds at their next renewal: another process's OS lock cannot be broken.
     */
    void requestRevoke(String file, LockFileRecord record) throws IOException {
        Set<String> processes = new HashSet<>();
        record.holds.forEach(h -> processes.add(h.process()));
        processes.remove(process);
        record.revokes.removeAll(processes);
        record.revokes.addAll(processes);
        // opened and closed here: this JVM holds no OS lock on it (closing a descriptor drops the process's locks)
        try (FileChannel ch = FileChannel.open(dir.resolve(file), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            record.write(ch);
        } catch (NoSuchFileException gone) {
            // released meanwhile
        }
    }

    /** Whether another process asked this JVM to end its holds of {@code e} (a force-unlock there). */
    boolean revoked(LockEntry e) throws IOException {
        if (e.channel == null) {
            return false;
        }
        return LockFileRecord.read(e.channel).revokes.contains(process);
    }

    /** The record of {@code e}'s file: through the held channel, else read from the path; null if it is gone. */
    LockFileRecord read(LockEntry e) throws IOException {
        if (e.channel != null && e.osLock != null) { // held: the channel names the path's current file
            return LockFileRecord.read(e.channel);
        }
        try (FileChannel ch = FileChannel.open(e.path, StandardOpenOption.READ)) {
            return LockFileRecord.read(ch);
        } catch (NoSuchFileException gone) {
            return null;
        }
    }

    /** Closes {@code e}'s channel (dropping its OS lock, if any). */
    static void closeChannel(LockEntry e) {
        if (e.channel != null) {
            try {
                e.channel.close();
            } catch (IOException ex) {
                log.debug("closing {} failed", e.path, ex);
            }
            e.channel = null;
            e.osLock = null;
        }
    }
}
