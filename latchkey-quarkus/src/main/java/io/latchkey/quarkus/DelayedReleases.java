package io.latchkey.quarkus;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Releases the leases of {@link LockedScheduled} runs that ended before their {@code lockAtLeastFor}
 * ({@link io.latchkey.integration.DelayedReleases}). One thread, {@code latchkey-schedule-release}, started on first use
 * and stopped at shutdown ({@link ShutdownEvent}, before the client closes), which releases every lease still waiting
 * at once (a stopping instance should not keep its ticks locked).
 */
@Singleton
class DelayedReleases {

    private final io.latchkey.integration.DelayedReleases releases =
            new io.latchkey.integration.DelayedReleases("@LockedScheduled");

    io.latchkey.integration.DelayedReleases releases() {
        return releases;
    }

    /** Whether the application is stopping: scheduled ticks that still fire then are skipped. */
    boolean stopping() {
        return releases.isClosed();
    }

    void onShutdown(@Observes ShutdownEvent event) {
        close();
    }

    @PreDestroy
    void close() {
        releases.close();
    }
}
