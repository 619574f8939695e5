package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AnsweredTakesTest {

    @Test
    void drainTakesAtMostTheAskedNumberOldestFirstAndForgetsAnEmptyName() {
        AnsweredTakes takes = new AnsweredTakes();
        takes.add("s", "t1");
        takes.add("s", "t2");
        takes.add("s", "t3");
        takes.add("other", "o1");
        assertThat(takes.drain("s", 2)).containsExactly("t1", "t2");
        assertThat(takes.names()).containsExactlyInAnyOrder("s", "other");
        assertThat(takes.drain("s", 2)).containsExactly("t3");
        assertThat(takes.names()).containsExactly("other");
        assertThat(takes.drain("s", 2)).isEmpty();
    }

    @Test
    void aCallThatDidNotGetThroughPutsItsRecordsBack() {
        AnsweredTakes takes = new AnsweredTakes();
        takes.add("s", "t1");
        List<String> sent = takes.drain("s", Integer.MAX_VALUE);
        takes.add("s", "t2");
        takes.requeue("s", sent);
        assertThat(takes.drain("s", Integer.MAX_VALUE)).containsExactlyInAnyOrder("t1", "t2");
    }
}
