package com.example;

import io.latchkey.quarkus.LockedRun;
import io.latchkey.quarkus.LockedScheduled;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CountDownLatch;

/** Runs on one instance per tick: the others find the lock taken and skip that tick. */
@ApplicationScoped
public class ReportJob {

    private final CountDownLatch ran = new CountDownLatch(1);

    @Scheduled(every = "1s")
    @LockedScheduled(name = "report", lockAtLeastFor = "500ms")
    void report() {
        System.out.printf("report ran on this instance, fencing token %d%n",
                LockedRun.currentLease().orElseThrow().fencingToken());
        ran.countDown();
    }

    /** {@return the latch opened by the first run here} */
    public CountDownLatch ran() {
        return ran;
    }
}
