package io.latchkey.file.internal;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that turns changes of lock files and state files in the lock directory into wake-ups: it blocks in
 * {@link WatchService#take()} and hands each changed file name to {@code onChange}, and an overflow (events lost) to
 * {@code onOverflow}. Where the watch service polls (macOS) or misses other hosts' changes (network file systems),
 * the engine's bounded re-check wakes waiters instead.
 */
final class DirectoryWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DirectoryWatcher.class);

    private final WatchService watch;
    private final Thread thread;

    DirectoryWatcher(Path dir, String threadName, Consumer<String> onChange, Runnable onOverflow)
            throws IOException {
        this.watch = FileSystems.getDefault().newWatchService();
        try {
            dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                    StandardWatchEventKinds.ENTRY_MODIFY);
        } catch (IOException | RuntimeException e) {
            watch.close();
            throw e;
        }
        this.thread = new Thread(() -> run(onChange, onOverflow), threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void run(Consumer<String> onChange, Runnable onOverflow) {
        try {
            while (true) {
                WatchKey key = watch.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        onOverflow.run();
                    } else if (event.context() instanceof Path p) {
                        String file = p.getFileName().toString();
                        if (FileNames.isLockFile(file) || FileNames.countKind(file) != null) {
                            onChange.accept(file);
                        }
                    }
                }
                if (!key.reset()) {
                    log.warn("the lock directory is no longer watched (deleted?); waiters fall back to re-checks");
                    return;
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException stop) {
            // closed
        }
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            log.debug("closing the watch service failed", e);
        }
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
