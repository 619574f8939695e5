package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FairHeadsTest {

    @Test
    void onlyAQueuedWaiterThatIsNotTheHeadAndAskedRecentlyIsSpared() {
        FairHeads heads = new FairHeads(1_000);
        assertThat(heads.spare("n", "a", 0)).as("nothing named yet").isZero();
        heads.asking("a", 100);
        heads.asking("b", 100);
        heads.named("n", "b");
        assertThat(heads.spare("n", "a", 400)).as("not the head, asked 300 ns ago").isEqualTo(700);
        assertThat(heads.spare("n", "b", 400)).as("the head always asks").isZero();
        assertThat(heads.spare("n", "a", 1_100)).as("its place needs refreshing").isZero();
        assertThat(heads.spare("n", "c", 400)).as("never asked").isZero();
        assertThat(heads.spare("other", "a", 400)).as("another name").isZero();
    }

    @Test
    void nothingStaysAfterTheWaitersAndTheSubscriptionAreGone() {
        FairHeads heads = new FairHeads(1_000);
        heads.asking("a", 0);
        heads.asking("b", 0);
        heads.named("n", "a");
        heads.done("a");
        heads.done("b");
        heads.unsubscribed("n");
        assertThat(heads.size()).isZero();
    }
}
