package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.context.SmartLifecycle;

/** The stop order without a context: no new work, the grace period, the interrupt, the callback. */
class LatchkeyShutdownTest {

    @Test
    void noNewWorkOnceStopping() {
        LatchkeyShutdown shutdown = new LatchkeyShutdown(Duration.ofSeconds(1), Duration.ofSeconds(1));
        shutdown.start();
        LatchkeyShutdown.Work before = shutdown.enter("@Locked A.a", "a");
        assertThat(before).isNotNull();
        shutdown.exit(before);
        AtomicBoolean called = new AtomicBoolean();
        shutdown.stop(() -> called.set(true));
        assertThat(called).as("nothing ran: the callback at once").isTrue();
        assertThat(shutdown.isRunning()).isFalse();
        assertThat(shutdown.isStopping()).isTrue();
        assertThat(shutdown.enter("@Locked A.a", "a")).isNull();
    }

    @Test
    void workThatEndsWithinTheGracePeriodIsNotInterrupted() throws Exception {
        LatchkeyShutdown shutdown = new LatchkeyShutdown(Duration.ofSeconds(10), Duration.ofSeconds(1));
        shutdown.start();
        CountDownLatch entered = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread worker = new Thread(() -> {
            LatchkeyShutdown.Work w = shutdown.enter("@Locked A.a", "a");
            entered.countDown();
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
            shutdown.exit(w);
        });
        worker.start();
        entered.await();
        CountDownLatch stopped = new CountDownLatch(1);
        long start = System.nanoTime();
        shutdown.stop(stopped::countDown);
        assertThat(stopped.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
        assertThat(interrupted).isFalse();
        worker.join();
    }

    @Test
    void workStillRunningAfterTheGracePeriodIsInterruptedAndItsThreadLeftClean() throws Exception {
        LatchkeyShutdown shutdown = new LatchkeyShutdown(Duration.ofMillis(200), Duration.ofSeconds(2));
        shutdown.start();
        CountDownLatch entered = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean flagAfterExit = new AtomicBoolean(true);
        Thread worker = new Thread(() -> {
            LatchkeyShutdown.Work w = shutdown.enter("@LockedSchedule A.a", "a");
            entered.countDown();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
                Thread.currentThread().interrupt(); // as a method that restores the flag
            }
            shutdown.exit(w);
            flagAfterExit.set(Thread.currentThread().isInterrupted());
        });
        worker.start();
        entered.await();
        CountDownLatch stopped = new CountDownLatch(1);
        shutdown.stop(stopped::countDown);
        assertThat(stopped.await(5, TimeUnit.SECONDS)).isTrue();
        worker.join(5000);
        assertThat(interrupted).isTrue();
        assertThat(flagAfterExit).as("our interrupt does not reach the thread's next task").isFalse();
    }

    @Test
    void theGracePeriodComesFromThePhaseTimeout() {
        assertThat(LatchkeyShutdown.forPhaseTimeout(null, Duration.ofSeconds(30))).extracting("gracePeriod")
                .isEqualTo(Duration.ofSeconds(25));
        assertThat(LatchkeyShutdown.forPhaseTimeout(null, Duration.ofSeconds(10))).extracting("gracePeriod")
                .isEqualTo(Duration.ofSeconds(8));
        assertThat(LatchkeyShutdown.forPhaseTimeout(Duration.ofSeconds(3), Duration.ofSeconds(30)))
                .extracting("gracePeriod").isEqualTo(Duration.ofSeconds(3));
        assertThat(new LatchkeyShutdown(Duration.ZERO, Duration.ZERO).getPhase())
                .isGreaterThan(SmartLifecycle.DEFAULT_PHASE - 2048).isLessThan(SmartLifecycle.DEFAULT_PHASE - 1024)
                .isGreaterThan(Integer.MAX_VALUE / 2);
    }
}
