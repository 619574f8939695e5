package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A context that closes while a {@link LockedSchedule} method runs long: the method gets the grace period, is
 * interrupted after it, its lock is released, and another client gets the lock at once after {@code close()}
 * returns — not after the lease; the log says what happened, never that another node may have run. A method that
 * ignores the interrupt outlasts our phase and the task scheduler's (which waits for it up to the phase timeout):
 * then the client's close releases its lock while it still runs.
 */
class GracefulShutdownTest {

    static volatile CountDownLatch started = new CountDownLatch(1);
    static final AtomicBoolean STUBBORN = new AtomicBoolean();
    static final AtomicBoolean ENDED = new AtomicBoolean();
    static final java.util.concurrent.atomic.AtomicReference<Throwable> LATE_CALL =
            new java.util.concurrent.atomic.AtomicReference<>();

    private static RedisServer redis;
    private static PrintStream stderr;
    /** What was logged (slf4j-simple writes to whatever {@code System.err} is at the time). */
    private static final ByteArrayOutputStream LOGGED = new ByteArrayOutputStream();

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.standalone().start();
        stderr = System.err;
        System.setErr(new PrintStream(new TeeStream(stderr, LOGGED), true, StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stopRedis() {
        if (stderr != null) {
            System.setErr(stderr);
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static String logged() {
        synchronized (LOGGED) {
            return LOGGED.toString(StandardCharsets.UTF_8);
        }
    }

    /** Copies what is written to two streams. */
    private static final class TeeStream extends OutputStream {
        private final OutputStream first;
        private final ByteArrayOutputStream second;

        TeeStream(OutputStream first, ByteArrayOutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws IOException {
            first.write(b);
            synchronized (second) {
                second.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            synchronized (second) {
                second.write(b, off, len);
            }
        }
    }

    private static ConfigurableApplicationContext app() {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("latchkey.uri=" + redis.uri(), "latchkey.watchdog-timeout=30s",
                        "latchkey.shutdown.grace-period=500ms", "spring.lifecycle.timeout-per-shutdown-phase=2s")
                .run();
    }

    @Test
    void aLongLockedScheduleIsInterruptedAfterTheGracePeriodAndItsLockReleased() throws Exception {
        STUBBORN.set(false);
        LATE_CALL.set(null);
        runAndClose();
        assertThat(LATE_CALL.get()).as("a @Locked call while the context closes fails fast")
                .isInstanceOf(io.latchkey.LockUnavailableException.class)
                .hasMessageContaining("the application is shutting down");
        assertThat(logged())
                .contains("interrupted locked method @LockedSchedule Jobs.longJob (lock 'long-job') after the grace "
                        + "period of 500 ms")
                .contains("@LockedSchedule 'long-job': released lock on shutdown after the method ended")
                .doesNotContain("another node may have run");
    }

    @Test
    void aMethodThatIgnoresTheInterruptHasItsLockReleasedByTheClientClose() throws Exception {
        STUBBORN.set(true);
        runAndClose();
        await().atMost(Duration.ofSeconds(15)).untilTrue(ENDED);
        await().atMost(Duration.ofSeconds(2)).until(() -> logged().contains(
                "@LockedSchedule 'long-job': lock released on shutdown while the method still ran"));
        assertThat(logged()).contains("released lock 'long-job'")
                .doesNotContain("another node may have run");
    }

    private void runAndClose() throws Exception {
        ENDED.set(false);
        started = new CountDownLatch(1);
        ConfigurableApplicationContext context = app();
        try (LockClient other = LockClient.connect(redis.uri())) {
            assertThat(started.await(20, TimeUnit.SECONDS)).as("the scheduled method started").isTrue();
            assertThat(other.lock("long-job").isLocked()).isTrue();
            Jobs jobs = context.getBean(Jobs.class);
            Thread lateCaller = new Thread(() -> {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> logged().contains("shutting down: no new locked work"));
                try {
                    jobs.quick();
                    LATE_CALL.set(new AssertionError("ran"));
                } catch (Throwable t) {
                    LATE_CALL.set(t);
                }
            }, "late-caller");
            lateCaller.start();
            long closing = System.nanoTime();
            context.close();
            lateCaller.join(10_000);
            long closed = System.nanoTime();
            Optional<LockLease> lease = other.lock("long-job").tryAcquire(Duration.ofSeconds(2));
            long afterClose = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
            System.out.printf("context close took %d ms; another client got the lock %d ms after it returned%n",
                    TimeUnit.NANOSECONDS.toMillis(closed - closing), afterClose);
            assertThat(lease).as("lock free within 2 s after close; %s", logged()).isPresent();
            assertThat(afterClose).isLessThan(2000);
            lease.get().release();
        } finally {
            context.close();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        @Locked(name = "'quick'")
        public void quick() {
        }

        @Scheduled(fixedDelay = 60_000)
        @LockedSchedule(name = "long-job")
        public void longJob() {
            started.countDown();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(STUBBORN.get() ? 5 : 60);
            try {
                while (System.nanoTime() - until < 0) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        if (!STUBBORN.get()) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }
            } finally {
                ENDED.set(true);
            }
        }
    }
}
