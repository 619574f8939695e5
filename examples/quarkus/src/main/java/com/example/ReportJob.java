package com.example;

import io.latchkey.quarkus.LockedRun;
import io.latchkey.quarkus.LockedScheduled;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Singleton;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A report due at every whole second on every instance (a cron trigger, so that all instances are due at the same
 * moments); the instance that takes the lock runs it and keeps the lock half a second, so the others, due at the same
 * second, find it taken and skip that tick. Prints {@code tick <epoch second> token <fencing token>} where it ran, the
 * second being the one the run was due at.
 */
@ApplicationScoped
public class ReportJob {

    private final CountDownLatch ran = new CountDownLatch(1);
    private final AtomicInteger runs = new AtomicInteger();

    @Scheduled(cron = "* * * * * ?", skipExecutionIf = LateRun.class)
    @LockedScheduled(name = "report", lockAtLeastFor = "500ms")
    void report(ScheduledExecution execution) {
        // the tick this run is for: the second it was due at, not the one it runs in (the first runs, as the instance
        // starts, may take the lock most of a second after they were due)
        long second = execution.getScheduledFireTime().getEpochSecond();
        System.out.printf("tick %d token %d%n", second, LockedRun.currentLease().orElseThrow().fencingToken());
        runs.incrementAndGet();
        ran.countDown();
    }

    /** {@return the latch opened by the first run here} */
    public CountDownLatch ran() {
        return ran;
    }

    /** {@return how many ticks ran on this instance} */
    public int runs() {
        return runs.get();
    }

    /**
     * Skips a run that fires more than 250 ms into its second (at start-up the scheduler's first check fires the
     * second that has just passed, about half a second late): holding the lock for 500 ms from then, it would take the
     * next tick from every instance.
     */
    @Singleton
    public static class LateRun implements Scheduled.SkipPredicate {
        @Override
        public boolean test(ScheduledExecution execution) {
            return System.currentTimeMillis() % 1000 > 250;
        }
    }
}
