package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.latchkey.integration.CompositeLockEventListener;
import io.latchkey.integration.DelayedReleases;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.stream.Collectors;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the application's {@link LockClient} and of {@link Locked}.
 *
 * <p>The client comes from {@code latchkey.uri} through {@link LockClient#connect(String, io.latchkey.ClientOptions)},
 * or else from the application's own Lettuce {@code RedisClient}/{@code RedisClusterClient},
 * {@code CuratorFramework} or {@code DataSource} bean, in that order (see {@link LockClientFactory}); such a bean
 * stays the application's and is not closed with the lock client. Every {@link LockEventListener} bean (the
 * Micrometer one among them) receives the client's events. The client is closed when the context closes. An
 * application that defines its own {@link LockClient} bean keeps it.
 */
@AutoConfiguration(afterName = {
        // Spring Boot 4 names, then Boot 3.5's
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@EnableConfigurationProperties(LatchkeyProperties.class)
public class LatchkeyAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public LatchkeyAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockClient.class)
    LockClient latchkeyLockClient(LatchkeyProperties properties, ObjectProvider<LockEventListener> listeners,
                                  ListableBeanFactory beans) {
        LockEventListener listener = CompositeLockEventListener.of(
                listeners.orderedStream().collect(Collectors.toList()));
        return new LockClientFactory(beans, properties, LatchkeyAutoConfiguration.class.getClassLoader())
                .create(properties.toClientOptions(listener));
    }

    /** Static and lazy about the client: post-processors are created before ordinary beans. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnProperty(prefix = "latchkey.locked", name = "enabled", matchIfMissing = true)
    static LockedAnnotationBeanPostProcessor latchkeyLockedAnnotationBeanPostProcessor(
            ObjectProvider<LockClient> client, ObjectProvider<ObservationRegistry> observationRegistry,
            BeanFactory beanFactory) {
        return new LockedAnnotationBeanPostProcessor(new LockedMethodInterceptor(client::getObject, beanFactory,
                new LockObservations(observationRegistry::getIfAvailable), shutdown(beanFactory)));
    }

    /**
     * Stops locked work in order when the context closes: no new work, the grace period for running methods, an
     * interrupt, then (when the client bean is destroyed) the client releases what is left; see
     * {@link LatchkeyShutdown}.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LatchkeyShutdown latchkeyShutdown(LatchkeyProperties properties, Environment environment) {
        Duration phaseTimeout = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase",
                Duration.class).orElse(Duration.ofSeconds(30));
        return LatchkeyShutdown.forPhaseTimeout(properties.getShutdown().getGracePeriod(), phaseTimeout);
    }

    private static java.util.function.Supplier<LatchkeyShutdown> shutdown(BeanFactory beanFactory) {
        return () -> beanFactory.getBeanProvider(LatchkeyShutdown.class).getIfAvailable();
    }

    /**
     * Releases {@link LockedSchedule} leases held for their lockAtLeastFor; releases them all when closed. Looked up
     * on first use, i.e. after the client: so it is destroyed before the client closes.
     */
    @Bean(destroyMethod = "close")
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnProperty(prefix = "latchkey.schedule", name = "enabled", matchIfMissing = true)
    static DelayedReleases latchkeyScheduleDelayedReleases() {
        return new DelayedReleases("@LockedSchedule");
    }

    /** Static, like the one above, and before Spring's scheduling post-processor (see its order). */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnProperty(prefix = "latchkey.schedule", name = "enabled", matchIfMissing = true)
    static LockedScheduleBeanPostProcessor latchkeyLockedScheduleBeanPostProcessor(
            ObjectProvider<LockClient> client, ObjectProvider<ObservationRegistry> observationRegistry,
            ObjectProvider<DelayedReleases> delayedReleases, BeanFactory beanFactory) {
        return new LockedScheduleBeanPostProcessor(new LockedScheduleInterceptor(client::getObject, beanFactory,
                new LockObservations(observationRegistry::getIfAvailable), delayedReleases::getObject,
                shutdown(beanFactory)));
    }
}
