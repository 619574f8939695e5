package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.console.LockConsole;
import jakarta.servlet.Filter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * The lock console under the actuator, when {@code latchkey.console.enabled=true} (off by default) on a servlet web
 * application: the {@code latchkey} endpoint's path plus {@code /console/}, e.g. {@code /actuator/latchkey/console/},
 * reading the application's own {@link LockClient}. A management context configuration, so that the console is
 * served where the actuator is: on the application's port, or on {@code management.server.port} when the actuator
 * has its own. Not served on a reactive (WebFlux) application, and not unless the {@code latchkey} endpoint is
 * exposed over HTTP (its path is the console's, and so are the rules that protect it).
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, LockConsole.class})
@ConditionalOnProperty(prefix = "latchkey.console", name = "enabled", havingValue = "true")
public class LatchkeyConsoleConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LatchkeyConsoleConfiguration.class);

    /** Creates the configuration; Spring calls it. */
    public LatchkeyConsoleConfiguration() {
    }

    @Bean(destroyMethod = "close")
    LockConsole latchkeyConsole(LockClient client, LatchkeyProperties properties) {
        Logger audit = LoggerFactory.getLogger("io.latchkey.console.audit");
        LatchkeyProperties.Console c = properties.getConsole();
        return LockConsole.builder(client).backend(client.getClass().getSimpleName() + " (" + client.clientId() + ")")
                .pattern(c.getPattern()).interval(c.getInterval()).maxStreams(c.getMaxStreams())
                .auditSink(line -> audit.warn("{}", line)).build().start();
    }

    @Bean
    Filter latchkeyConsoleFilter(LockConsole console, ObjectProvider<PathMappedEndpoints> endpoints) {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        String endpoint = mapped == null ? null : mapped.getPath(EndpointId.of("latchkey"));
        if (endpoint == null) {
            log.warn("latchkey.console.enabled is true but the latchkey endpoint is not exposed over HTTP, so the "
                    + "console is not served: add latchkey to management.endpoints.web.exposure.include");
            return (request, response, chain) -> chain.doFilter(request, response);
        }
        log.info("latchkey console at {}/console/ (force-unlock open to whoever reaches the actuator)", endpoint);
        return new LatchkeyConsoleFilter(console, endpoint + "/console");
    }
}
