package io.latchkey.quarkus.deployment;

import io.latchkey.quarkus.LockedRun;
import io.latchkey.quarkus.LockedScheduled;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A scheduled job that runs on one instance per tick. */
@ApplicationScoped
public class TickJob {

    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicLong lastToken = new AtomicLong(-1);

    /** {@return how many ticks ran here} (methods, not fields: callers hold a client proxy) */
    public int runs() {
        return runs.get();
    }

    /** {@return the fencing token of the last run} */
    public long lastToken() {
        return lastToken.get();
    }

    @Scheduled(every = "0.1s")
    @LockedScheduled(name = "tick")
    void tick() {
        lastToken.set(LockedRun.currentLease().orElseThrow().fencingToken());
        runs.incrementAndGet();
    }
}
