package io.latchkey.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void suitesAndRowsAreCommaSeparatedAndCaseInsensitive() {
        BenchOptions o = BenchOptions.parse("--suites", "Redis-Sync, redis", "--rows", "Semaphore,fair lock");

        assertThat(o.suites()).containsExactly("redis-sync", "redis");
        assertThat(o.rows()).containsExactly("semaphore", "fair lock");
        assertThat(o.selects("semaphore: 16 threads, distinct names")).isTrue();
        assertThat(o.selects("fair lock: 16 threads, one name (contended), watchdog")).isTrue();
        assertThat(o.selects("read lock: 16 threads, distinct names, watchdog")).isFalse();
        assertThat(o.describe()).endsWith("only rows matching semaphore or fair lock");
    }

    @Test
    void withoutRowsEveryRowIsSelected() {
        BenchOptions o = BenchOptions.parse();

        assertThat(o.suites()).containsExactly("redis");
        assertThat(o.rows()).isEmpty();
        assertThat(o.selects("count-down latch: 16 threads, distinct names")).isTrue();
    }

    @Test
    void anEmptyListIsRefusedWithTheFlagInTheMessage() {
        assertThatThrownBy(() -> BenchOptions.parse("--rows", " , "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--rows needs at least one name but was ' , '");
        assertThatThrownBy(() -> BenchOptions.parse("--suites"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("flag --suites needs a value");
    }

    @Test
    void badNumbersAreRefusedWithTheValue() {
        assertThatThrownBy(() -> BenchOptions.parse("--threads", "0"))
                .hasMessage("--threads must be a positive integer but was '0'");
        assertThatThrownBy(() -> BenchOptions.parse("--measure", "0"))
                .hasMessage("--measure must be a positive number of seconds but was 0");
    }

    @Test
    void synchronizerRowsAreLabelledByPrimitiveAndPlainLockRowsAsBefore() {
        assertThat(new Scenario(16, true, LeaseMode.WATCHDOG).label())
                .isEqualTo("16 threads, one name (contended), watchdog");
        assertThat(new Scenario(Primitive.READ_LOCK, 16, true, LeaseMode.WATCHDOG).label())
                .isEqualTo("read lock: 16 threads, one name (shared), watchdog");
        assertThat(new Scenario(Primitive.SEMAPHORE, 1, false, LeaseMode.NONE).label())
                .isEqualTo("semaphore: 1 thread, distinct names");
    }
}
