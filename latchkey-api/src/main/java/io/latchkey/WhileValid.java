package io.latchkey;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The body of {@link LockLease#runWhileValid} and {@link Leadership#runWhileValid}: runs a task on the calling
 * thread and interrupts that thread when a loss listener fires, without ever leaking that interrupt past the
 * return.
 */
final class WhileValid {

    private static final int RUNNING = 0;
    private static final int FINISHED = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;

    private WhileValid() {
    }

    static <T> T run(String what, String name, BooleanSupplier valid, Consumer<Runnable> onLost,
                     Consumer<Runnable> removeOnLost, Callable<T> task) throws Exception {
        if (task == null) {
            throw new NullPointerException("task");
        }
        if (!valid.getAsBoolean()) {
            throw new LockLostException(name, String.format("%s '%s' is no longer valid; the task was not run",
                    what, name));
        }
        Thread runner = Thread.currentThread();
        AtomicInteger state = new AtomicInteger(RUNNING);
        Runnable interrupter = () -> {
            if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                runner.interrupt();
                state.set(INTERRUPTED);
            }
        };
        onLost.accept(interrupter);
        T result = null;
        Throwable failure = null;
        try {
            result = task.call();
        } catch (Throwable t) {
            failure = t;
        }
        if (state.compareAndSet(RUNNING, FINISHED)) {
            // finished before any loss: the listener would only be a no-op kept as long as the lease
            removeOnLost.accept(interrupter);
            if (failure == null) {
                return result;
            }
            if (failure instanceof Exception e) {
                throw e;
            }
            throw (Error) failure;
        }
        // Lost while the task ran: wait until the listener's interrupt has landed, then consume it — it is
        // reported by the exception below, and must not hit whatever the caller does next.
        while (state.get() != INTERRUPTED) {
            Thread.onSpinWait();
        }
        Thread.interrupted();
        LockLostException lost = new LockLostException(name, String.format(
                "%s '%s' was lost while the task ran; the task was interrupted%s", what, name,
                failure == null ? " (it returned anyway; its result is discarded)" : ""));
        if (failure != null) {
            lost.initCause(failure);
        }
        throw lost;
    }
}
