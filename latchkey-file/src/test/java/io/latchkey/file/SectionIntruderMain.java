package io.latchkey.file;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Child process of {@link FileLockClientTest}: {@code SectionIntruderMain <dir> <lockFile> <windowMillis>} holds the
 * directory section (the exclusive lock on {@code latchkey.state}), prints {@code SECTION}, and for
 * {@code windowMillis} tries the hold byte of {@code lockFile}. No process may release a hold while another is in
 * the section, so it should never get it: it then prints {@code RESULT NEVER_FREE}, leaves the section and exits.
 * If it does get it, it plays the two other processes of the delete-and-recreate race — unlinks the file, creates
 * a new one at the path and holds that one's byte — prints {@code RESULT TOOK}, leaves the section and holds on
 * until killed.
 */
public final class SectionIntruderMain {

    private static final long LOCK_POSITION = 1L << 30;

    private SectionIntruderMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path lockFile = Path.of(args[1]);
        long windowNanos = Long.parseLong(args[2]) * 1_000_000L;
        FileChannel state = FileChannel.open(dir.resolve("latchkey.state"), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock section = state.lock();
        System.out.println("SECTION");
        System.out.flush();
        long start = System.nanoTime();
        boolean took = false;
        while (!took && System.nanoTime() - start < windowNanos) {
            try (FileChannel old = FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                FileLock probe = old.tryLock(LOCK_POSITION, 1, false);
                if (probe != null) {
                    Files.delete(lockFile);
                    took = true;
                }
            }
            if (!took) {
                Thread.sleep(5);
            }
        }
        FileChannel fresh = null;
        if (took) {
            fresh = FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            if (fresh.tryLock(LOCK_POSITION, 1, false) == null) {
                throw new IllegalStateException("the new file is locked already");
            }
        }
        System.out.println(took ? "RESULT TOOK" : "RESULT NEVER_FREE");
        System.out.flush();
        section.release();
        state.close();
        if (took) {
            Thread.sleep(60_000);
            fresh.close();
        }
    }
}
