package com.example;

import io.latchkey.micronaut.LockedRun;
import io.latchkey.micronaut.LockedSchedule;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A report due at every whole second on every instance (a cron trigger, so that all instances are due at the same
 * moments); the instance that takes the lock runs it and keeps the lock half a second, so the others, due at the same
 * second, find it taken and skip that tick. Prints {@code tick <epoch second> token <fencing token>} where it ran.
 */
@Singleton
public class ReportJob {

    final CountDownLatch ran = new CountDownLatch(1);
    final AtomicInteger runs = new AtomicInteger();
    volatile long token;

    @Scheduled(cron = "* * * * * *")
    @LockedSchedule(name = "example-report", lockAtLeastFor = "500ms")
    void report() {
        long second = (System.currentTimeMillis() + 250) / 1000; // the tick this run is for: the second it runs in
        token = LockedRun.currentLease().orElseThrow().fencingToken();
        System.out.printf("tick %d token %d%n", second, token);
        runs.incrementAndGet();
        ran.countDown();
    }
}
