package io.latchkey.redis;

import io.latchkey.core.Arguments;
import io.latchkey.DistributedSemaphore;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link DistributedSemaphore} on Redis: the available permits are one integer key
 * {@code <namespace>{<namespace + name>}:latchkey:semaphore:permits} (absent until {@link #trySetPermits} or
 * {@link #addPermits} sets it; no TTL, as permits are not owned), changed only by scripts that check and change it
 * in one step.
 *
 * <p><b>Waiting.</b> The threads of one client waiting on one name queue locally ({@link SemaphoreWaiters}): only
 * the first waits at the server, and a release with local waiters hands its permits to them without a round trip
 * (at most {@link SemaphoreWaiters#MAX_LOCAL_HAND_OFFS} times in a row, then a release goes to the server so that
 * other clients' waiters get their turn). The waiter at the server subscribes to {@code latchkey_semaphore__channel:<base>} and attempts again when
 * permits are added or released anywhere, and at a bounded re-check (a third of the waiter heartbeat) in case a
 * message was lost; it never polls in between. Waiters are not queued at the server: when permits come back,
 * whichever waiter's attempt arrives first and fits takes them (like a non-fair
 * {@link java.util.concurrent.Semaphore}), so a large {@code acquire(n)} can be overtaken by small ones.
 * A waiting acquire parks no thread of its own: it is a chain of callbacks; only the calling thread blocks.
 *
 * <p><b>Interruption and timeouts.</b> An interrupted {@code acquire} throws {@link InterruptedException} and takes
 * nothing (permits granted in the race are given back); a timed {@code tryAcquire} that gives up takes nothing.
 *
 * <p><b>Memory effects.</b> Actions before a {@code release} in one client happen-before actions after an
 * {@code acquire} that got those permits in another, through the server's ordering of the scripts.
 */
final class RedisSemaphore implements DistributedSemaphore {

    private final String name;
    private final String permitsKey;
    private final String channel;
    private final String[] permitsAndChannel;
    private final ScriptExecutor executor;
    private final UnlockSubscriptions subscriptions;
    private final java.util.concurrent.ScheduledExecutorService scheduler;
    private final SyncWaits waits;
    private final long recheckMillis;
    private final SemaphoreWaiters localWaiters;

    RedisSemaphore(String namespace, String name, ScriptExecutor executor, UnlockSubscriptions subscriptions,
                   java.util.concurrent.ScheduledExecutorService scheduler, SyncWaits waits, long recheckMillis,
                   SemaphoreWaiters localWaiters) {
        this.name = name;
        String base = SyncKeys.base(namespace, name, "semaphore");
        this.permitsKey = base + ":permits";
        this.channel = "latchkey_semaphore__channel:" + base;
        this.permitsAndChannel = new String[] {permitsKey, channel};
        this.executor = executor;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.waits = waits;
        this.recheckMillis = recheckMillis;
        this.localWaiters = localWaiters;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        Arguments.positive("permits", permits);
        take(permits, AcquireRequest.NO_DEADLINE);
    }

    @Override
    public boolean tryAcquire() {
        waits.checkOpen();
        Long r = waits.get(attempt(1), "tryAcquire");
        return r > 0;
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        Arguments.positive("permits", permits);
        return take(permits, Arguments.waitDeadline(waitTime));
    }

    /**
     * Takes {@code permits} asynchronously: completes with {@code true} once taken, {@code false} when
     * {@code waitTime} passed first. No thread waits meanwhile.
     */
    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime) {
        Arguments.positive("permits", permits);
        waits.checkOpen();
        AcquireRequest request = new AcquireRequest(name, "-", 1, false, Arguments.waitDeadline(waitTime),
                io.latchkey.core.TimeSource.SYSTEM);
        return start(permits, request).thenApply(g -> g != null);
    }

    private boolean take(int permits, long deadline) throws InterruptedException {
        waits.checkOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return localWaiters.take(permits, deadline, this::takeAtServer, this::release);
    }

    private boolean takeAtServer(int permits, long deadline) throws InterruptedException {
        // One plain attempt first: most acquires find their permits, and then the waiting machinery (request,
        // subscription bookkeeping, timer) is not worth building. A refusal starts it, and it attempts again at once.
        if (attemptOnce(permits)) {
            return true;
        }
        if (deadline != AcquireRequest.NO_DEADLINE && System.nanoTime() - deadline >= 0) {
            return false;
        }
        return waits.await(name, deadline, request -> start(permits, request),
                // on the thread that answered (maybe Lettuce's): no blocking there
                won -> executor.run(SemaphoreScripts.ADD, ScriptOutputType.INTEGER, permitsAndChannel,
                        Integer.toString(permits))) != null;
    }

    private boolean attemptOnce(int permits) throws InterruptedException {
        CompletableFuture<Long> reply = attempt(permits);
        try {
            return waits.getInterruptibly(reply, "acquire") > 0;
        } catch (InterruptedException e) {
            // The attempt may still win: then the permits go straight back, so an interrupted caller holds nothing.
            reply.thenAccept(r -> {
                if (r > 0) {
                    executor.run(SemaphoreScripts.ADD, ScriptOutputType.INTEGER, permitsAndChannel,
                            Integer.toString(permits));
                }
            });
            throw e;
        }
    }

    private CompletableFuture<Grant> start(int permits, AcquireRequest request) {
        return new WaitingAcquire(subscriptions, scheduler, request, channel, willWait -> attempt(permits), null,
                recheckMillis, null).start();
    }

    private CompletableFuture<Long> attempt(int permits) {
        return executor.run(SemaphoreScripts.ACQUIRE, ScriptOutputType.INTEGER, new String[] {permitsKey},
                Integer.toString(permits), Long.toString(recheckMillis));
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public void release(int permits) {
        Arguments.positive("permits", permits);
        waits.checkOpen();
        int rest = localWaiters.handOff(permits);
        if (rest > 0) {
            add(rest, "release");
        }
    }

    @Override
    public int availablePermits() {
        waits.checkOpen();
        String v = waits.get(executor.call(() -> executor.commands().get(permitsKey), "GET"), "availablePermits");
        return v == null ? 0 : saturate(Long.parseLong(v));
    }

    @Override
    public boolean trySetPermits(int permits) {
        Arguments.notNegative("permits", permits);
        waits.checkOpen();
        Long r = waits.get(executor.run(SemaphoreScripts.TRY_SET, ScriptOutputType.INTEGER, permitsAndChannel,
                Integer.toString(permits)), "trySetPermits");
        return r == 1L;
    }

    @Override
    public void addPermits(int permits) {
        add(permits, "addPermits");
    }

    private void add(int permits, String operation) {
        waits.checkOpen();
        waits.get(executor.run(SemaphoreScripts.ADD, ScriptOutputType.INTEGER, permitsAndChannel,
                Integer.toString(permits)), operation);
    }

    @Override
    public int drainPermits() {
        waits.checkOpen();
        Long r = waits.get(executor.run(SemaphoreScripts.DRAIN, ScriptOutputType.INTEGER, new String[] {permitsKey}),
                "drainPermits");
        return saturate(r);
    }

    private static int saturate(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    /** This client's queue of threads waiting on this name (shared by every instance of the name). */
    SemaphoreWaiters localWaiters() {
        return localWaiters;
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{name='" + name + "', backend=redis}";
    }
}
