package io.latchkey.file.internal;

import io.latchkey.LockUnavailableException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of a lock directory, {@code latchkey-file-<8 hex of the directory>} (see {@link LockDirectory}):
 * each task runs inside one directory section ({@link DirectorySection}), and the futures it completes run after the
 * section is left. A daemon, stopped (its {@link #executor} shut down) by {@link LockDirectory#detach()}.
 */
final class DirectoryThread {
    private static final Logger log = LoggerFactory.getLogger(DirectoryThread.class);

    /** Work on the directory's thread in one directory section; {@code after} runs once the section is left. */
    @FunctionalInterface
    interface Task<T> {
        T run(DirectorySection s, List<Runnable> after) throws IOException;
    }

    private final Path dir;
    private final Path stateFile;
    final ScheduledThreadPoolExecutor executor;
    /** The thread, once started (the executor never replaces it: its tasks do not throw). */
    private volatile Thread thread;
    /** Set by the close task; confined to the thread. Later tasks fail instead of running. */
    boolean stopped;

    DirectoryThread(Path dir, String label) {
        this.dir = dir;
        this.stateFile = dir.resolve(FileNames.STATE_FILE);
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "latchkey-file-" + label);
            t.setDaemon(true);
            thread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Whether the caller runs on this thread. */
    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    void awaitTermination(long seconds) {
        try {
            executor.awaitTermination(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code task} on this thread after {@code delay}; {@code null} (never runs) once the directory closes. */
    ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        try {
            return executor.schedule(task, delay, unit);
        } catch (RejectedExecutionException closing) {
            return null; // closed: nothing left to do
        }
    }

    /** Runs {@code task} on this thread; fails with {@link LockUnavailableException} if it throws or it is closed. */
    <T> CompletableFuture<T> submit(String op, Task<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable closed = () -> result.completeExceptionally(new LockUnavailableException(
                String.format("lock directory %s closed (%s)", dir, op)));
        try {
            executor.execute(() -> {
                if (stopped) {
                    closed.run();
                } else {
                    runNow(op, task, result);
                }
            });
        } catch (RejectedExecutionException e) {
            closed.run();
        }
        return result;
    }

    /** Runs {@code task} now, on the caller's thread (which must be this one), discarding its result. */
    <T> void runNow(String op, Task<T> task) {
        runNow(op, task, new CompletableFuture<>());
    }

    /** Runs {@code task} now in one directory section; completions run after the section. */
    private <T> void runNow(String op, Task<T> task, CompletableFuture<T> result) {
        List<Runnable> after = new ArrayList<>();
        T value = null;
        Throwable failure = null;
        DirectorySection s = new DirectorySection(stateFile);
        try {
            value = task.run(s, after);
        } catch (IOException | RuntimeException e) {
            failure = e;
        } finally {
            try {
                s.close();
            } catch (IOException e) {
                log.debug("leaving the directory section of {} failed", dir, e);
            }
        }
        for (Runnable r : after) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("completion after {} in {} failed", op, dir, e);
            }
        }
        if (failure != null) {
            log.debug("{} in {} failed", op, dir, failure);
            result.completeExceptionally(io.latchkey.core.ConnectFailures.unavailable("lock directory " + dir, op,
                    failure));
        } else {
            result.complete(value);
        }
    }

    static void cancel(Future<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
