package io.latchkey.redis;

import io.latchkey.DistributedCountDownLatch;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Arguments;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A {@link DistributedCountDownLatch} on Redis: the count is one integer key
 * {@code <namespace>{<namespace + name>}:latchkey:latch:count} (absent: open), changed only by scripts. The
 * count-down that reaches zero deletes the key and publishes on {@code latchkey_latch__channel:<base>}.
 *
 * <p><b>Waiting.</b> {@link #await} subscribes to the latch's channel and checks again on every message and at a
 * bounded re-check (a third of the waiter heartbeat) in case a message was lost; it never polls in between. All
 * threads of all clients waiting on the latch are woken by the one message.
 *
 * <p><b>Interruption and timeouts.</b> An interrupted {@code await} throws {@link InterruptedException}; a timed
 * one returns {@code false} after about its timeout. {@link io.latchkey.LockClient#close()} ends waits with
 * {@link IllegalStateException}.
 *
 * <p><b>Memory effects.</b> Actions before a {@code countDown} happen-before actions after an {@code await} that
 * returned because of it, through the server's ordering of the scripts and the message.
 */
final class RedisCountDownLatch implements DistributedCountDownLatch {

    private final String name;
    private final String countKey;
    private final String channel;
    private final ScriptExecutor executor;
    private final UnlockSubscriptions subscriptions;
    private final ScheduledExecutorService scheduler;
    private final SyncWaits waits;
    private final long recheckMillis;

    RedisCountDownLatch(String namespace, String name, ScriptExecutor executor, UnlockSubscriptions subscriptions,
                        ScheduledExecutorService scheduler, SyncWaits waits, long recheckMillis) {
        this.name = name;
        String base = SyncKeys.base(namespace, name, "latch");
        this.countKey = base + ":count";
        this.channel = "latchkey_latch__channel:" + base;
        this.executor = executor;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.waits = waits;
        this.recheckMillis = recheckMillis;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean trySetCount(long count) {
        Arguments.positive("count", count);
        waits.checkOpen();
        Long r = waits.get(executor.run(CountDownLatchScripts.TRY_SET, ScriptOutputType.INTEGER,
                new String[] {countKey}, Long.toString(count)), "trySetCount");
        return r == 1L;
    }

    @Override
    public void countDown() {
        waits.checkOpen();
        waits.get(executor.run(CountDownLatchScripts.COUNT_DOWN, ScriptOutputType.INTEGER,
                new String[] {countKey, channel}), "countDown");
    }

    @Override
    public long getCount() {
        waits.checkOpen();
        String v = waits.get(executor.call(() -> executor.commands().get(countKey), "GET"), "getCount");
        return v == null ? 0 : Math.max(0, Long.parseLong(v));
    }

    @Override
    public void await() throws InterruptedException {
        awaitUntil(AcquireRequest.NO_DEADLINE);
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        return awaitUntil(Arguments.waitDeadline(timeout));
    }

    private boolean awaitUntil(long deadline) throws InterruptedException {
        return waits.await(name, deadline, request -> new WaitingAcquire(subscriptions, scheduler, request, channel,
                willWait -> executor.run(CountDownLatchScripts.IS_OPEN, ScriptOutputType.INTEGER,
                        new String[] {countKey}, Long.toString(recheckMillis)),
                null, recheckMillis, null).start(), open -> { }) != null;
    }

    @Override
    public String toString() {
        return "DistributedCountDownLatch{name='" + name + "', backend=redis}";
    }
}
