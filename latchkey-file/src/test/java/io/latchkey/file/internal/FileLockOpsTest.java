package io.latchkey.file.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.ArbitratedLockOps.Kind;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps.Attempt;
import io.latchkey.core.TimeSource;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file lock's single attempts below the engine: answers, queue order, withdrawal, wake-ups. */
class FileLockOpsTest {

    @TempDir
    Path dir;
    LockDirectory directory;

    @BeforeEach
    void attach() {
        directory = LockDirectory.attach(dir);
    }

    @AfterEach
    void detach() {
        directory.detach();
    }

    FileLockOps ops(Kind kind) {
        return new FileLockOps(directory, "ns", kind, (g, why) -> { }, "file-ops-test");
    }

    static AcquireRequest request(String name, String owner, long leaseMillis) {
        return new AcquireRequest(name, owner, leaseMillis, false, AcquireRequest.NO_DEADLINE, TimeSource.SYSTEM);
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aBusyAttemptQueuesTheOwnerAndAReleaseTellsTheSubscribers() throws Exception {
        FileLockOps lock = ops(Kind.LOCK);
        Grant a = await(lock.tryAcquire(request("n", "A", 300), null)).grant();
        assertThat(a).isNotNull();
        Attempt busy = await(lock.tryAcquire(request("n", "B", 30_000), null));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.entry()).isEqualTo("B");
        assertThat(busy.recheckNanos()).as("at the holder's lease end in this JVM")
                .isPositive().isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(301));

        CountDownLatch told = new CountDownLatch(1);
        RemoteCountOps.Subscription sub = await(lock.subscribe("n", told::countDown));
        try {
            assertThat(await(lock.release(a))).isTrue();
            assertThat(told.await(5, TimeUnit.SECONDS)).isTrue();
            Grant b = await(lock.tryAcquire(request("n", "B", 30_000), "B")).grant();
            assertThat(b).isNotNull();
            assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
            assertThat(await(lock.release(b))).isTrue();
        } finally {
            sub.close();
        }
        assertThat(await(lock.isLocked("n"))).isFalse();
    }

    @Test
    void aReaderDoesNotOvertakeAQueuedWriterUntilItWithdraws() throws Exception {
        FileLockOps read = ops(Kind.READ);
        FileLockOps write = ops(Kind.WRITE);
        Grant r1 = await(read.tryAcquire(request("rw", "R1", 30_000), null)).grant();
        assertThat(r1).isNotNull();
        Attempt w = await(write.tryAcquire(request("rw", "W", 30_000), null));
        assertThat(w.isGranted()).isFalse();
        Attempt r2 = await(read.tryAcquire(request("rw", "R2", 30_000), null));
        assertThat(r2.isGranted()).as("behind the queued writer").isFalse();

        await(write.withdraw(request("rw", "W", 30_000), w.entry()));
        Grant r2Granted = await(read.tryAcquire(request("rw", "R2", 30_000), r2.entry())).grant();
        assertThat(r2Granted).as("the writer withdrew").isNotNull();
        assertThat(await(read.release(r1))).isTrue();
        assertThat(await(read.release(r2Granted))).isTrue();
    }

    @Test
    void theFairLockServesItsQueueInArrivalOrder() throws Exception {
        FileLockOps fair = ops(Kind.FAIR);
        Grant a = await(fair.tryAcquire(request("f", "A", 30_000), null)).grant();
        Attempt b = await(fair.tryAcquire(request("f", "B", 30_000), null));
        Attempt c = await(fair.tryAcquire(request("f", "C", 30_000), null));
        assertThat(b.isGranted()).isFalse();
        assertThat(c.isGranted()).isFalse();
        assertThat(c.recheckNanos()).as("each attempt keeps the wait lines live")
                .isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(LockArbiter.TICKET_REFRESH_MILLIS));
        assertThat(await(fair.release(a))).isTrue();
        assertThat(await(fair.tryAcquire(request("f", "C", 30_000), c.entry())).isGranted())
                .as("B queued first").isFalse();
        Grant bGranted = await(fair.tryAcquire(request("f", "B", 30_000), b.entry())).grant();
        assertThat(bGranted).isNotNull();
        assertThat(await(fair.release(bGranted))).isTrue();
        Grant cGranted = await(fair.tryAcquire(request("f", "C", 30_000), c.entry())).grant();
        assertThat(cGranted.fencingToken()).isGreaterThan(bGranted.fencingToken());
        assertThat(await(fair.release(cGranted))).isTrue();
        assertThat(await(fair.isLocked("f"))).isFalse();
    }
}
