package io.latchkey.core.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the stack depth of completions that trigger completions. A waiter's future completes on whatever thread
 * answered (often the thread releasing the lock, with a backend that answers synchronously), and its callbacks
 * may release again, which grants the next waiter on the same stack, and so on: a thousand chained async waiters
 * would nest a thousand deep. Past {@link #MAX_DEPTH} nested completions on one thread, the next completion
 * continues on the client's callback executor instead, on a fresh stack.
 *
 * <p>Completions are never queued for later on the current thread: that thread may go on to block (a callback
 * that waits), and the completion it queued would then never run.
 */
final class Trampoline {
    private static final Logger log = LoggerFactory.getLogger(Trampoline.class);
    static final int MAX_DEPTH = 16;
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private Trampoline() {
    }

    static void run(Executor overflow, Runnable task) {
        int[] depth = DEPTH.get();
        if (depth[0] >= MAX_DEPTH) {
            try {
                overflow.execute(task);
                return;
            } catch (RejectedExecutionException e) {
                // the client is closing: finish here rather than lose the completion
            }
        }
        depth[0]++;
        try {
            task.run();
        } catch (RuntimeException e) {
            log.error("completion callback failed", e);
        } finally {
            depth[0]--;
        }
    }
}
