package io.latchkey.core;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A removal on the server that must get through: the release of a permit, the delete of a lock's node or key. A
 * removal lost to a failed write or a broken connection would otherwise keep a lock taken or a permit used until its
 * lease ends — or, where the client keeps the lease alive for its other holds (a ZooKeeper session, an etcd shared
 * lease), for the client's lifetime. So the removal is tried again, after {@code firstDelayMillis} and then a
 * doubling pause of at most {@code maxDelayMillis}, until one try answers or the client closes (closing ends the
 * retries: the session's or lease's end, or the lease itself, takes what is left). Only for idempotent removals.
 *
 * <p>One instance per client (or session), on the backend's timer. No lock is held: each removal has one try in
 * flight at a time, chained through its futures. The first failure is logged at warning level, the success after
 * retries at info level.
 */
public final class RetriedRemoval {

    /**
     * One try of a removal.
     *
     * @param <T> what the server answers
     */
    @FunctionalInterface
    public interface Try<T> {
        /**
         * Sends the removal once.
         *
         * @param retry 0 for the first try, then 1, 2, …
         * @return the server's answer; a failure that the removal's {@code retryable} accepts is tried again
         */
        CompletableFuture<T> run(int retry);
    }

    private final BiConsumer<Runnable, Long> later;
    private final BooleanSupplier open;
    private final long firstDelayMillis;
    private final long maxDelayMillis;
    private final Logger log;

    /**
     * The retries of one client.
     *
     * @param later schedules a task after a delay in milliseconds on the backend's timer; may throw
     *        {@link RejectedExecutionException} once the client closes
     * @param open whether the client is still open
     * @param firstDelayMillis the pause before the first retry, at least 1
     * @param maxDelayMillis the longest pause, at least {@code firstDelayMillis}
     * @param log where to log, the backend's logger
     */
    public RetriedRemoval(BiConsumer<Runnable, Long> later, BooleanSupplier open, long firstDelayMillis,
                          long maxDelayMillis, Logger log) {
        this.later = Objects.requireNonNull(later, "later");
        this.open = Objects.requireNonNull(open, "open");
        if (firstDelayMillis < 1 || maxDelayMillis < firstDelayMillis) {
            throw new IllegalArgumentException(String.format(
                    "delays must be 1 <= first <= max but were %d and %d ms", firstDelayMillis, maxDelayMillis));
        }
        this.firstDelayMillis = firstDelayMillis;
        this.maxDelayMillis = maxDelayMillis;
        this.log = Objects.requireNonNull(log, "log");
    }

    /**
     * Tries {@code removal} now and again until the server answers.
     *
     * @param what the removal and where, for the log ("delete of /latchkey/locks/a/_c_…")
     * @param removal one try
     * @param retryable which failures are tried again (it sees the cause, not a {@link CompletionException})
     * @param ifClosed the outcome if the client closes before a try answered
     * @param onFirstRetry runs once if the first try failed and is retried; may be {@code null}
     * @param <T> what the server answers
     * @return the first answer that is not retried: a value, a failure {@code retryable} rejects, or
     *         {@code ifClosed}
     */
    public <T> CompletableFuture<T> now(String what, Try<T> removal, Predicate<Throwable> retryable, T ifClosed,
                                        Runnable onFirstRetry) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        attempt(what, removal, retryable, ifClosed, onFirstRetry, 0, firstDelayMillis, outcome);
        return outcome;
    }

    /**
     * As {@link #now}, but the first try waits {@code firstDelayMillis}: for a removal whose own first try (made
     * elsewhere) already failed.
     *
     * @param what the removal and where, for the log
     * @param removal one try; its first call gets {@code retry} 1
     * @param retryable which failures are tried again
     * @param ifClosed the outcome if the client closes before a try answered
     * @param <T> what the server answers
     * @return the first answer that is not retried, or {@code ifClosed}
     */
    public <T> CompletableFuture<T> afterFailure(String what, Try<T> removal, Predicate<Throwable> retryable,
                                                 T ifClosed) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        log.warn("{} failed; retrying until the server answers", what);
        schedule(what, removal, retryable, ifClosed, 1, firstDelayMillis, outcome);
        return outcome;
    }

    /**
     * A release whose caller hears the first try's outcome (a failure still fails the caller's future), while the
     * release is tried again in the background until the server answers: what {@link RemoteCountOps#release}
     * promises.
     *
     * @param what the permit and where, for the log ("permit p-1 of 'slots' on db:5432")
     * @param release one try
     * @param <T> the release's result
     * @return the first try's future
     */
    public <T> CompletableFuture<T> release(String what, Supplier<CompletableFuture<T>> release) {
        Objects.requireNonNull(release, "release");
        CompletableFuture<T> first = new CompletableFuture<>();
        now(what, retry -> {
            CompletableFuture<T> f = release.get();
            if (retry == 0) {
                f.whenComplete((v, e) -> {
                    if (e != null) {
                        first.completeExceptionally(e);
                    } else {
                        first.complete(v);
                    }
                });
            }
            return f;
        }, e -> true, null, null);
        return first;
    }

    private <T> void attempt(String what, Try<T> removal, Predicate<Throwable> retryable, T ifClosed,
                             Runnable onFirstRetry, int retry, long delayMillis, CompletableFuture<T> outcome) {
        if (!open.getAsBoolean()) {
            outcome.complete(ifClosed);
            return;
        }
        CompletableFuture<T> answer;
        try {
            answer = removal.run(retry);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((v, e) -> {
            if (e == null) {
                if (retry > 0) {
                    log.info("{} went through on retry {}", what, retry);
                }
                outcome.complete(v);
                return;
            }
            Throwable cause = unwrap(e);
            if (!retryable.test(cause)) {
                outcome.completeExceptionally(cause);
                return;
            }
            if (!open.getAsBoolean()) {
                outcome.complete(ifClosed);
                return;
            }
            if (retry == 0) {
                log.warn("{} failed; retrying until the server answers: {}", what, cause.toString());
                if (onFirstRetry != null) {
                    onFirstRetry.run();
                }
            }
            schedule(what, removal, retryable, ifClosed, retry + 1, delayMillis, outcome);
        });
    }

    private <T> void schedule(String what, Try<T> removal, Predicate<Throwable> retryable, T ifClosed, int retry,
                              long delayMillis, CompletableFuture<T> outcome) {
        long next = Math.min(maxDelayMillis, delayMillis * 2);
        try {
            later.accept(() -> attempt(what, removal, retryable, ifClosed, null, retry, next, outcome), delayMillis);
        } catch (RejectedExecutionException closing) {
            outcome.complete(ifClosed);
        }
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
