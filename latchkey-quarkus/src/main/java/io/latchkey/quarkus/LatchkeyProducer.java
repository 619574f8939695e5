package io.latchkey.quarkus;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.latchkey.integration.CompositeLockEventListener;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The application's {@link LockClient}: connected to {@code latchkey.uri} (in dev and test mode without it, to
 * {@code mem://latchkey}), created at start-up so that a missing or wrong URI stops the application there, and closed
 * when the application stops ({@link LockClient#close()} releases every hold the client still has). An application
 * that produces its own {@code LockClient} bean replaces this one.
 */
@Singleton
class LatchkeyProducer {

    private static final Logger LOG = Logger.getLogger(LatchkeyProducer.class);

    /** Where dev and test mode lock without {@code latchkey.uri}: in-process, this JVM only. */
    static final String DEV_URI = "mem://latchkey";

    @Produces
    @Singleton
    @DefaultBean
    LockClient lockClient(LatchkeyConfig config, Instance<LockEventListener> listeners) {
        ClientOptions.Builder options = ClientOptions.builder()
                .watchdogTimeout(config.watchdogTimeout())
                .operationTimeout(config.operationTimeout())
                // the application closes the client when it stops (close below); the JVM-wide hook would close it
                // in parallel with the application's own shutdown, under running locked work
                .closeOnShutdown(false);
        config.namespace().ifPresent(options::namespace);
        config.clientName().filter(n -> !n.isBlank()).ifPresent(options::clientName);
        List<LockEventListener> all = listeners.stream().collect(Collectors.toList());
        if (!all.isEmpty()) {
            options.eventListener(CompositeLockEventListener.of(all));
        }
        return LockClient.connect(uri(config, LaunchMode.current()), options.build());
    }

    static String uri(LatchkeyConfig config, LaunchMode mode) {
        if (config.uri().isPresent() && !config.uri().get().isBlank()) {
            return config.uri().get().strip();
        }
        if (mode.isDevOrTest()) {
            LOG.infof("latchkey.uri is not set: %s mode locks in-process on %s (this JVM only); set latchkey.uri "
                    + "(e.g. redis://localhost:6379) to lock across instances", mode.getDefaultProfile(), DEV_URI);
            return DEV_URI;
        }
        throw new IllegalStateException("latchkey.uri is not set: a production application must name its lock "
                + "backend, e.g. latchkey.uri=redis://host:6379 (or zookeeper://, etcd://, jdbc:, file://) in "
                + "application.properties or LATCHKEY_URI in the environment; only dev and test mode default to "
                + DEV_URI);
    }

    /** Connects at start-up, so that a missing or unreachable backend configuration stops the application there. */
    void onStart(@Observes StartupEvent event, LockClient client) {
        LOG.debugf("Latchkey client %s ready", client.clientId());
    }

    /**
     * Closes the client when the application stops: {@link LockClient#close()} releases its holds, then stops the
     * backend's driver. The close runs on thread {@code latchkey-close} and is waited for at most the operation timeout
     * plus 5 s, so that a driver stuck in its own shutdown cannot keep the application from stopping (a hold it could
     * not release expires after {@code latchkey.watchdog-timeout}).
     */
    void close(@Disposes LockClient client, LatchkeyConfig config) {
        Thread closer = new Thread(client::close, "latchkey-close");
        closer.setDaemon(true);
        closer.start();
        long bound = config.operationTimeout().toMillis() + 5_000;
        try {
            closer.join(bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (closer.isAlive()) {
            LOG.warnf("Latchkey client %s did not finish closing within %d ms (its backend driver is still stopping); "
                    + "the application stops anyway", client.clientId(), bound);
        }
    }
}
