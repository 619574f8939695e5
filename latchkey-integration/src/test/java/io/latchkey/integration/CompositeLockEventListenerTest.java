package io.latchkey.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockEventListener;
import io.latchkey.LockHolder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The composite of listener beans forwards the holder of a timed-out wait, and only asks for it if one wants it. */
class CompositeLockEventListenerTest {

    private static boolean overridesHolder(LockEventListener l) throws NoSuchMethodException {
        return l.getClass().getMethod("timedOutHeldBy", String.class, Duration.class, LockHolder.class)
                .getDeclaringClass() != LockEventListener.class;
    }

    @Test
    void forwardsTheHolderOnlyWhenAListenerWantsIt() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        LockEventListener counting = new LockEventListener() {
            @Override
            public void timedOut(String lockName, Duration waited) {
                told.add("timedOut " + lockName);
            }
        };
        LockEventListener wants = new LockEventListener() {
            @Override
            public void timedOutHeldBy(String lockName, Duration waited, LockHolder holder) {
                told.add("heldBy " + holder.clientName());
            }
        };
        LockEventListener plain = CompositeLockEventListener.of(List.of(counting, new LockEventListener() { }));
        assertThat(overridesHolder(plain)).as("nobody wants the holder: not asked").isFalse();

        LockEventListener both = CompositeLockEventListener.of(List.of(counting, wants));
        assertThat(overridesHolder(both)).isTrue();
        both.timedOut("a", Duration.ZERO);
        both.timedOutHeldBy("a", Duration.ZERO, new LockHolder("o", "billing-7", Optional.empty(), Optional.empty(),
                OptionalLong.empty(), OptionalInt.empty()));
        assertThat(told).containsExactly("timedOut a", "heldBy billing-7");
    }

    @Test
    void aBackendsCompositeStillForwardsTheHolderAndTheWait() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        LockEventListener waits = new LockEventListener() {
            @Override
            public AcquireWait waitStarted(String lockName) {
                return new AcquireWait() {
                    @Override
                    public void acquired(long fencingToken, Duration waited) {
                        told.add("acquired " + lockName + " " + fencingToken);
                    }
                };
            }

            @Override
            public LockEventListener forBackend(String backend) {
                told.add("bound " + backend);
                return this;
            }
        };
        LockEventListener wants = new LockEventListener() {
            @Override
            public void timedOutHeldBy(String lockName, Duration waited, LockHolder holder) {
                told.add("heldBy " + holder.clientName());
            }
        };
        LockEventListener bound = CompositeLockEventListener.of(List.of(waits, wants)).forBackend("redis");
        assertThat(overridesHolder(bound)).as("still asks for the holder").isTrue();
        bound.waitStarted("a").acquired(7, Duration.ZERO);
        bound.timedOutHeldBy("a", Duration.ZERO, new LockHolder("o", "billing-7", Optional.empty(), Optional.empty(),
                OptionalLong.empty(), OptionalInt.empty()));
        assertThat(told).containsExactly("bound redis", "acquired a 7", "heldBy billing-7");

        LockEventListener plain = CompositeLockEventListener.of(List.of(waits, new LockEventListener() { }))
                .forBackend("redis");
        assertThat(overridesHolder(plain)).as("nobody wants the holder: not asked").isFalse();
    }
}
