package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockLease;
import io.latchkey.Locks;
import io.latchkey.core.mem.MemLockClient;
import java.lang.ref.WeakReference;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@code runWhileValid} registers a loss listener per call; once the task has returned, the listener goes again. A
 * long-held lease (a leader's) that runs a task every second must not collect one listener, and the thread it
 * interrupts, per task: here the thread of a finished call must become unreachable.
 */
class RunWhileValidListenerTest {

    @Test
    void aFinishedTaskLeavesNoListenerOnALease() throws Exception {
        try (MemLockClient client = MemLockClient.create(CountingMemClient.newServer())) {
            LockLease lease = client.lock("rwv-" + UUID.randomUUID()).acquire();
            assertThat(runnerIsCollected(lease)).as("the finished call's listener let its thread go").isTrue();
            lease.release();
        }
    }

    @Test
    void aFinishedTaskLeavesNoListenerOnAMultiLockLease() throws Exception {
        try (MemLockClient client = MemLockClient.create(CountingMemClient.newServer())) {
            LockLease lease = Locks.multiLock(client.lock("rwv-a-" + UUID.randomUUID()),
                    client.lock("rwv-b-" + UUID.randomUUID())).acquire();
            assertThat(runnerIsCollected(lease)).isTrue();
            lease.release();
        }
    }

    @Test
    void aLossAfterTheTaskReturnedInterruptsNothing() throws Exception {
        try (MemLockClient client = MemLockClient.create(CountingMemClient.newServer())) {
            String name = "rwv-lost-" + UUID.randomUUID();
            LockLease lease = client.lock(name).acquire();
            for (int i = 0; i < 1000; i++) {
                assertThat(lease.runWhileValid(() -> 1)).isEqualTo(1);
            }
            client.lock(name).forceUnlock();
            Thread.sleep(200);
            assertThat(Thread.interrupted()).as("no listener of a finished call interrupted this thread").isFalse();
        }
    }

    /** Runs one task on a short-lived thread and reports whether that thread can be collected afterwards. */
    private static boolean runnerIsCollected(LockLease lease) throws Exception {
        Thread runner = new Thread(() -> {
            try {
                lease.runWhileValid(() -> "done");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "rwv-runner");
        runner.start();
        runner.join();
        WeakReference<Thread> ref = new WeakReference<>(runner);
        runner = null;
        return eventually(() -> {
            System.gc();
            return ref.get() == null;
        });
    }

    private static boolean eventually(Supplier<Boolean> condition) throws InterruptedException {
        for (int i = 0; i < 50; i++) {
            if (condition.get()) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }
}
