package io.latchkey.core.internal;

import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the stack depth of completions that trigger completions. A waiter's future completes on whatever thread
 * answered (often the thread releasing the lock), and its callbacks may release again, which grants the next
 * waiter on the same stack, and so on: a thousand chained async waiters would otherwise nest a thousand deep.
 * Past {@link #MAX_DEPTH} nested completions a task is queued and run by the outermost one, on the same thread.
 *
 * <p>A thread about to block on a future first runs what it has queued ({@link #runPending()}), since the
 * completion it waits for may be among it.
 */
final class Trampoline {
    private static final Logger log = LoggerFactory.getLogger(Trampoline.class);
    private static final int MAX_DEPTH = 8;
    private static final ThreadLocal<Trampoline> CURRENT = new ThreadLocal<>();

    private int depth;
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();

    private Trampoline() {
    }

    static void run(Runnable task) {
        Trampoline t = CURRENT.get();
        if (t == null) {
            t = new Trampoline();
            CURRENT.set(t);
        }
        if (t.depth >= MAX_DEPTH) {
            t.pending.add(task);
            return;
        }
        t.runNested(task);
        if (t.depth == 0) {
            t.drain();
        }
    }

    /** Runs the tasks this thread has queued; call before blocking. */
    static void runPending() {
        Trampoline t = CURRENT.get();
        if (t != null && !t.pending.isEmpty()) {
            t.drain();
        }
    }

    private void drain() {
        Runnable next;
        while ((next = pending.poll()) != null) {
            runNested(next);
        }
    }

    private void runNested(Runnable task) {
        depth++;
        try {
            task.run();
        } catch (RuntimeException | StackOverflowError e) {
            log.error("completion callback failed", e);
        } finally {
            depth--;
        }
    }
}
