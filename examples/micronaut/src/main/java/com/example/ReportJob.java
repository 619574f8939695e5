package com.example;

import io.latchkey.micronaut.LockedRun;
import io.latchkey.micronaut.LockedSchedule;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.util.concurrent.CountDownLatch;

/** A report that runs on one instance per tick: the others find the lock taken and skip. */
@Singleton
public class ReportJob {

    final CountDownLatch ran = new CountDownLatch(1);
    volatile long token;

    @Scheduled(fixedDelay = "1s", initialDelay = "100ms")
    @LockedSchedule(name = "example-report", lockAtLeastFor = "500ms")
    void report() {
        token = LockedRun.currentLease().orElseThrow().fencingToken();
        ran.countDown();
    }
}
