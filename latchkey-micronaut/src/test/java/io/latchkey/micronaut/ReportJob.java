package io.latchkey.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicInteger;

/** A scheduled job of the scheduling test's context only. */
@Singleton
@Requires(property = "test.report-job", value = "true")
public class ReportJob {

    final AtomicInteger runs = new AtomicInteger();

    @Scheduled(fixedDelay = "50ms")
    @LockedSchedule(name = "report", lockAtLeastFor = "20ms")
    void report() {
        if (LockedRun.currentLease().isEmpty()) {
            throw new IllegalStateException("no lease inside @LockedSchedule");
        }
        runs.incrementAndGet();
    }
}
