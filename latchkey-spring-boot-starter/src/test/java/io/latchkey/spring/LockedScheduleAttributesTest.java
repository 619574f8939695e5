package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.integration.DurationText;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A bad {@link LockedSchedule} fails the start naming the method and the reason; durations need a unit. */
class LockedScheduleAttributesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class))
            .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri());

    @Test
    void durationsNeedAUnit() {
        assertThat(DurationText.parse("x", "500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("x", "30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationText.parse("x", "10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(DurationText.parse("x", "PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        assertThatThrownBy(() -> DurationText.parse("lockAtMostFor", "10"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor must be a duration with a unit").hasMessageContaining("'10'");
    }

    @Test
    void aBadAttributeFailsTheStartNamingTheMethod() {
        runner.withBean(BadDuration.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("BadDuration.run()").hasMessageContaining("'5'"));
        runner.withBean(AtLeastOverAtMost.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("must not exceed lockAtMostFor"));
        runner.withBean(NotVoid.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("must return void"));
    }

    @Test
    void aRunHoldsItsLeaseAndASecondCallerSkips() {
        runner.withBean(Nested.class).run(context -> {
            Nested job = context.getBean(Nested.class);
            Nested.self = job; // the proxy (fields of a class-based proxy are not the bean's)
            job.run();
            assertThat(Nested.ranInside).isTrue();
            assertThat(Nested.otherRan).isFalse();
            job.other();
            assertThat(Nested.otherRan).as("free again after the run").isTrue();
            assertThat(LockedRun.currentLease()).isEmpty();
        });
    }

    static class BadDuration {
        @LockedSchedule(lockAtMostFor = "5")
        public void run() {
        }
    }

    static class AtLeastOverAtMost {
        @LockedSchedule(lockAtMostFor = "1s", lockAtLeastFor = "2s")
        public void run() {
        }
    }

    static class NotVoid {
        @LockedSchedule
        public int run() {
            return 1;
        }
    }

    static class Nested {
        static volatile Nested self;
        static volatile boolean ranInside;
        static volatile boolean otherRan;

        @LockedSchedule(name = "nested")
        public void run() throws InterruptedException {
            ranInside = LockedRun.isLockValid();
            // another scheduler thread trying the same lock while this run holds it: skipped quietly
            Thread other = new Thread(() -> self.other(), "other-tick");
            other.start();
            other.join();
        }

        @LockedSchedule(name = "nested")
        public void other() {
            otherRan = true;
        }
    }
}
