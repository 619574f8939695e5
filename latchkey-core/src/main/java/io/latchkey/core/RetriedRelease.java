package io.latchkey.core;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The retry that {@link RemoteCountOps#release} promises: a release the engine (or a caller) relies on to free a
 * permit for other clients is sent again, every {@code periodMillis}, until the server answers or the client closes,
 * so that a permit whose release met a failed write or a broken connection is not held until its lease ends. The
 * caller's future is the first attempt's: it still fails. Only for idempotent releases (one id names one permit;
 * releasing a released permit is a no-op).
 */
public final class RetriedRelease {

    private RetriedRelease() {
    }

    /**
     * Runs {@code release}; if it fails while {@code open}, logs a warning naming {@code what} and runs it again
     * every {@code periodMillis} through {@code later} until one attempt succeeds (logged at info) or the client is
     * no longer open.
     *
     * @param what the permit and where, for the log ("permit p-1 of 'slots' on db:5432")
     * @param release one attempt; called on whatever thread {@code later} runs tasks on
     * @param later schedules a task after a delay in milliseconds (the backend's timer)
     * @param open whether the client is still open
     * @param periodMillis the pause between attempts, at least 1
     * @param log where to log
     * @param <T> the release's result
     * @return the first attempt's future
     */
    public static <T> CompletableFuture<T> untilDone(String what, Supplier<CompletableFuture<T>> release,
                                                     BiConsumer<Runnable, Long> later, BooleanSupplier open,
                                                     long periodMillis, Logger log) {
        Objects.requireNonNull(release, "release");
        CompletableFuture<T> first = release.get();
        first.whenComplete((ok, e) -> {
            if (e != null && open.getAsBoolean()) {
                log.warn("releasing {} failed; retrying every {} ms: {}", what, periodMillis, e.toString());
                retry(what, release, later, open, periodMillis, log);
            }
        });
        return first;
    }

    private static <T> void retry(String what, Supplier<CompletableFuture<T>> release, BiConsumer<Runnable, Long> later,
                                  BooleanSupplier open, long periodMillis, Logger log) {
        later.accept(() -> release.get().whenComplete((ok, e) -> {
            if (e == null) {
                log.info("{} released on a retry", what);
            } else if (open.getAsBoolean()) {
                retry(what, release, later, open, periodMillis, log);
            }
        }), periodMillis);
    }
}
