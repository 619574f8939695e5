package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/** Blocking waits of the mem synchronizers (argument checks: {@link io.latchkey.core.Arguments}). */
final class MemWaits {

    private MemWaits() {
    }

    /**
     * Waits for {@code f}. On interrupt the wait is cancelled; a result that won the race with the cancel is
     * handed to {@code giveBack}, so nothing stays taken on behalf of a caller who got an exception.
     */
    static <T> T await(CompletableFuture<T> f, Consumer<T> giveBack) throws InterruptedException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            if (!f.cancel(false) && !f.isCompletedExceptionally()) {
                T won = f.getNow(null);
                if (won != null) {
                    giveBack.accept(won);
                }
            }
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof LockUnavailableException) {
                throw new LockUnavailableException(cause.getMessage(), cause);
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new LockUnavailableException(String.valueOf(cause), cause);
        }
    }
}
