package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import io.latchkey.zookeeper.ZooKeeperLockClient;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The client built on the application's own CuratorFramework bean, against a real in-process ZooKeeper server. */
class ExistingCuratorBeanTest {

    private static EmbeddedZooKeeper zooKeeper;

    @BeforeAll
    static void startServer() {
        zooKeeper = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stopServer() {
        zooKeeper.close();
    }

    @Test
    void aCuratorBeanBuildsTheZooKeeperClientWhichLeavesItRunning() {
        AtomicReference<CuratorFramework> curator = new AtomicReference<>();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class))
                .withUserConfiguration(CuratorConfig.class)
                .withBean(LockedTestService.class)
                .withPropertyValues("latchkey.namespace=spring-test")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client).isInstanceOf(ZooKeeperLockClient.class);
                    curator.set(context.getBean(CuratorFramework.class));

                    DistributedLock lock = client.lock("order:9");
                    assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
                    assertThat(context.getBean(LockedTestService.class).shipNow(10)).isEqualTo("shipped 10");
                    lock.unlock();
                    assertThat(context.getBean(LockedTestService.class).shipNow(9)).isEqualTo("shipped 9");

                    // the framework is the application's: closing the lock client leaves it running
                    client.close();
                    assertThat(curator.get().getState()).isEqualTo(CuratorFrameworkState.STARTED);
                });
        assertThat(curator.get().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
    }

    @Configuration(proxyBeanMethods = false)
    static class CuratorConfig {
        @Bean(initMethod = "start", destroyMethod = "close")
        CuratorFramework curatorFramework() {
            return CuratorFrameworkFactory.builder()
                    .connectString(zooKeeper.connectString())
                    .sessionTimeoutMs(5_000)
                    .connectionTimeoutMs(5_000)
                    .retryPolicy(new ExponentialBackoffRetry(50, 5, 1000))
                    .build();
        }
    }
}
