package io.latchkey.micronaut;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** lockAtLeastFor above lockAtMostFor: the start-up check rejects it (only in the context that asks for it). */
@Singleton
@Requires(property = "test.bad-schedule", value = "true")
public class BadScheduleJob {

    @LockedSchedule(lockAtMostFor = "1s", lockAtLeastFor = "2s")
    void report() {
    }
}
