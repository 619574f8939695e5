package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import java.util.stream.Collectors;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

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
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@EnableConfigurationProperties(LatchkeyProperties.class)
public class LatchkeyAutoConfiguration {

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
            ObjectProvider<LockClient> client, BeanFactory beanFactory) {
        return new LockedAnnotationBeanPostProcessor(new LockedMethodInterceptor(client::getObject, beanFactory));
    }
}
