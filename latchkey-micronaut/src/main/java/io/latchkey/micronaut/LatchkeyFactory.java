package io.latchkey.micronaut;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.latchkey.integration.CompositeLockEventListener;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.ConfigurationException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's {@link LockClient}: {@link LockClient#connect(String, ClientOptions)} of {@code latchkey.uri} with
 * the options of {@link LatchkeyConfiguration} and the application's {@link LockEventListener} beans (the Micrometer
 * meters among them), closed when the application context stops, after the running {@code @Locked} work has ended.
 * Created when the application context starts ({@code @Context}), so that a missing or wrong {@code latchkey.uri} or
 * an unreachable backend fails the start. Replace it with a {@code LockClient} bean of your own annotated
 * {@code @Replaces(LockClient.class)}.
 */
@Factory
class LatchkeyFactory {

    private static final Logger LOG = LoggerFactory.getLogger(LatchkeyFactory.class);
    private static final AtomicLong MEM_CLIENTS = new AtomicLong();

    @Context
    @Bean(preDestroy = "close")
    LockClient lockClient(LatchkeyConfiguration config, Environment environment, List<LockEventListener> listeners) {
        ClientOptions.Builder options = ClientOptions.builder()
                .watchdogTimeout(config.getWatchdogTimeout())
                .operationTimeout(config.getOperationTimeout())
                .namespace(config.getNamespace() == null ? "" : config.getNamespace())
                // the context closes the client after its locked work has ended (LockedWork); the JVM-wide hook
                // would close it in parallel with that work
                .closeOnShutdown(false);
        if (config.getClientName() != null && !config.getClientName().isBlank()) {
            options.clientName(config.getClientName());
        }
        if (!listeners.isEmpty()) {
            options.eventListener(CompositeLockEventListener.of(listeners));
        }
        String uri = config.getUri();
        if (uri == null || uri.isBlank()) {
            Set<String> active = environment.getActiveNames();
            if (!active.contains(Environment.TEST) && !active.contains(Environment.DEVELOPMENT)) {
                throw new ConfigurationException("latchkey.uri is not set (active environments: " + active
                        + "): set it to the lock backend, e.g. latchkey.uri=redis://localhost:6379; only the test and "
                        + "dev environments fall back to an in-memory client");
            }
            uri = "mem://micronaut-" + MEM_CLIENTS.incrementAndGet();
            LOG.info("latchkey.uri is not set: the {} environment uses the in-memory lock client {} (locks are "
                    + "shared inside this application only)", active.contains(Environment.TEST) ? "test" : "dev", uri);
        }
        return LockClient.connect(uri, options.build());
    }
}
