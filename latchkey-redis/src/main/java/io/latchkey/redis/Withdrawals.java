package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.MaintenanceScheduler;
import io.latchkey.core.RetriedRemoval;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Withdrawals of waiting places that must get through (a fair lock's queue entry, a waiting writer's intent): one lost
 * to a broken connection or a failover would keep the others waiting until the entry's heartbeat runs out on the
 * server. So a withdrawal that did not reach the server ({@link LockUnavailableException}; a refusal is not retried)
 * is tried again by the engine's {@link RetriedRemoval} until the server answers, the client closes, or the heartbeat
 * has run out since the first try (the server has dropped the entry by then). The caller hears of the first try.
 *
 * <p>The same owner may queue again: its new attempt {@linkplain #superseded supersedes} a withdrawal still being
 * retried, so that a late retry does not take the new place away. A retry already on its way when the new attempt
 * goes out can still remove the new entry; the owner's next attempt then queues again at the end of the line.
 */
final class Withdrawals {
    private static final Logger log = LoggerFactory.getLogger(Withdrawals.class);
    static final long FIRST_RETRY_MILLIS = 50;
    static final long MAX_RETRY_MILLIS = 500;

    private final RetriedRemoval removals;
    /** The withdrawal being retried per name and owner, by its identity. */
    private final Map<String, Object> pending = new ConcurrentHashMap<>();

    Withdrawals(MaintenanceScheduler scheduler) {
        this.removals = retried(scheduler, log);
    }

    /** Removals retried on {@code scheduler} from {@value #FIRST_RETRY_MILLIS} ms up to {@value #MAX_RETRY_MILLIS}. */
    static RetriedRemoval retried(MaintenanceScheduler scheduler, Logger log) {
        return new RetriedRemoval((task, delayMillis) -> scheduler.schedule(task, delayMillis, TimeUnit.MILLISECONDS),
                () -> !scheduler.isShutdown(), FIRST_RETRY_MILLIS, MAX_RETRY_MILLIS, log);
    }

    private static String key(String name, String owner) {
        return name + '\u0000' + owner;
    }

    /** Withdraws the place of {@code owner} on {@code name} by {@code once}: the first try's outcome. */
    CompletableFuture<Void> withdraw(String what, String name, String owner, long boundMillis,
                                     Supplier<CompletableFuture<?>> once) {
        String key = key(name, owner);
        Object mine = new Object();
        pending.put(key, mine);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        CompletableFuture<Void> first = new CompletableFuture<>();
        removals.now(what, retry -> {
            if (retry > 0 && (pending.get(key) != mine || System.nanoTime() - until >= 0)) {
                return CompletableFuture.completedFuture(null); // superseded, or the server dropped the entry
            }
            CompletableFuture<Void> f;
            try {
                f = once.get().thenApply(r -> null);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            if (retry == 0) {
                f.handle((v, e) -> e != null ? first.completeExceptionally(e) : first.complete(null));
            }
            return f;
        }, e -> e instanceof LockUnavailableException, null, null)
                .whenComplete((v, e) -> pending.remove(key, mine));
        return first;
    }

    /** {@code owner} asks for {@code name} again: a withdrawal of its earlier place still being retried stops. */
    void superseded(String name, String owner) {
        if (!pending.isEmpty()) {
            pending.remove(key(name, owner));
        }
    }

    /** The number of withdrawals being retried (for tests). */
    int pending() {
        return pending.size();
    }
}
