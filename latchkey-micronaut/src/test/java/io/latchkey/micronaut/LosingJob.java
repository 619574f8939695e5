package io.latchkey.micronaut;

import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;

/** A run that outlives its fixed lease: the loss interrupts it. */
@Singleton
public class LosingJob {

    volatile boolean interrupted;
    volatile boolean validAtEnd = true;

    @LockedSchedule(name = "losing", lockAtMostFor = "300ms", onLost = LockedSchedule.OnLost.INTERRUPT)
    void run() {
        try {
            TimeUnit.SECONDS.sleep(10);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        validAtEnd = LockedRun.isLockValid();
    }
}
