package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class LockedTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class))
            .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri(),
                    "latchkey.watchdog-timeout=600ms")
            .withBean(LockedTestService.class);

    private final ExecutorService pool = Executors.newFixedThreadPool(3, r -> {
        Thread t = new Thread(r, "locked-test-caller");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void theServiceIsProxied() {
        runner.run(context -> assertThat(AopUtils.isAopProxy(context.getBean(LockedTestService.class))).isTrue());
    }

    @Test
    void twoCallsOnTheSameNameExcludeEachOther() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            LockClient client = context.getBean(LockClient.class);
            CountDownLatch firstIn = new CountDownLatch(1);
            CountDownLatch secondIn = new CountDownLatch(1);
            CountDownLatch releaseFirst = new CountDownLatch(1);
            CountDownLatch releaseSecond = new CountDownLatch(1);
            Future<String> first = pool.submit(() -> service.ship(42, firstIn, releaseFirst));
            assertThat(firstIn.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(client.lock("order:42").isLocked()).isTrue();

            Future<String> second = pool.submit(() -> service.ship(42, secondIn, releaseSecond));
            // the second caller must be parked on the lock, not inside: give it time to (wrongly) get in
            assertThat(secondIn.await(300, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(service.inside()).isEqualTo(1);

            releaseFirst.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("shipped 42");
            assertThat(secondIn.await(10, TimeUnit.SECONDS)).isTrue();
            releaseSecond.countDown();
            assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("shipped 42");
            assertThat(service.maxInside()).isEqualTo(1);
            assertThat(client.lock("order:42").isLocked()).isFalse();
        });
    }

    @Test
    void differentNamesRunTogether() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            CountDownLatch bothIn = new CountDownLatch(2);
            CountDownLatch release = new CountDownLatch(1);
            Future<String> one = pool.submit(() -> service.ship(1, bothIn, release));
            Future<String> two = pool.submit(() -> service.ship(2, bothIn, release));
            assertThat(bothIn.await(10, TimeUnit.SECONDS)).as("both inside at once").isTrue();
            release.countDown();
            assertThat(one.get(10, TimeUnit.SECONDS)).isEqualTo("shipped 1");
            assertThat(two.get(10, TimeUnit.SECONDS)).isEqualTo("shipped 2");
        });
    }

    @Test
    void aWaitThatEndsWithoutTheLockThrowsWithNameAndWait() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            CountDownLatch in = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<String> holder = pool.submit(() -> service.ship(7, in, release));
            assertThat(in.await(10, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> service.shipOrGiveUp(7))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                        assertThat(e.lockName()).isEqualTo("order:7");
                        assertThat(e.waitTime()).isEqualTo(Duration.ofMillis(100));
                        assertThat(e.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(90));
                        assertThat(e.holder()).as("who held it").isPresent();
                    })
                    .hasMessageStartingWith("lock 'order:7' not acquired within PT0.1S (waited ")
                    .hasMessageContaining(": held by " + io.latchkey.ClientOptions.defaults().clientName() + " since ")
                    .hasMessageContaining(", token ");
            assertThatThrownBy(() -> service.shipNow(7)).isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("within PT0S");
            assertThat(service.shipNow(8)).isEqualTo("shipped 8");

            release.countDown();
            holder.get(10, TimeUnit.SECONDS);
            assertThat(service.shipOrGiveUp(7)).isEqualTo("shipped 7");
        });
    }

    @Test
    void nestedCallsOnTheSameNameReenter() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            assertThat(service.outer("x", service)).isEqualTo("inner x");
            assertThat(context.getBean(LockClient.class).lock("outer:x").isLocked()).isFalse();
        });
    }

    /** The fencing token of a {@code @Locked} call: its lease is {@code LockedRun.currentLease()} inside it. */
    @Test
    void theLeaseAndItsFencingTokenAreAvailableInsideTheMethod() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            assertThat(LockedRun.currentLease()).isEmpty();
            LockedTestService.Seen first = service.fenced("a");
            LockedTestService.Seen second = service.fenced("a");
            assertThat(first.name()).isEqualTo("fenced:a");
            assertThat(first.valid()).isTrue();
            assertThat(second.token()).as("a later hold of the name has a greater token").isGreaterThan(first.token());

            LockedTestService.Seen[] nested = service.fencedNested("b", service);
            assertThat(nested[0].token()).as("the nested call runs under the outer lease").isEqualTo(nested[1].token());
            assertThat(nested[1].valid()).isTrue();

            assertThat(LockedRun.currentLease()).as("nothing current after the calls").isEmpty();
            assertThat(context.getBean(LockClient.class).lock("fenced:b").isLocked()).isFalse();
        });
    }

    @Test
    void theLockIsReleasedWhenTheMethodThrows() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            assertThatThrownBy(service::fails).isInstanceOf(UnsupportedOperationException.class).hasMessage("boom");
            assertThat(context.getBean(LockClient.class).lock("failing").isLocked()).isFalse();
        });
    }

    @Test
    void aLockLostWhileTheMethodRanFailsTheCallUnlessTolerated() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            LockClient client = context.getBean(LockClient.class);
            assertThatThrownBy(() -> service.outlivesLease(() -> !client.lock("short-lease").isLocked()))
                    .isInstanceOf(LockLostException.class);
            assertThat(service.outlivesLeaseTolerated(() -> !client.lock("short-lease-tolerated").isLocked()))
                    .isEqualTo("done");
        });
    }

    @Test
    void badNameExpressionsFailTheCallWithTheReason() {
        runner.run(context -> {
            LockedTestService service = context.getBean(LockedTestService.class);
            assertThatThrownBy(service::unquotedConstant).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("@Locked name \"report\"")
                    .hasMessageContaining("a constant name needs quotes");
            assertThatThrownBy(service::unparsable).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a valid SpEL expression");
            assertThatThrownBy(() -> service.nullName(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("evaluated to null");
            assertThatThrownBy(() -> service.nullName("")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("evaluated to an empty string");
        });
    }

    @Test
    void theAnnotationCanBeSwitchedOff() {
        runner.withPropertyValues("latchkey.locked.enabled=false").run(context ->
                assertThat(AopUtils.isAopProxy(context.getBean(LockedTestService.class))).isFalse());
    }
}
