package io.latchkey.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockLease;
import io.latchkey.file.internal.FileUri;
import io.latchkey.spi.LockInfo;
import io.latchkey.tck.ChildJvm;
import io.latchkey.tck.LockHolderMain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the file backend adds to the TCK: names → files, no residue, persisted tokens, several real processes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileLockClientTest extends FileDirectoryTest {

    @Test
    void uriForms() {
        assertThat(FileUri.parse("file:///var/lock/app")).isEqualTo(Path.of("/var/lock/app"));
        assertThat(FileUri.parse("file:/var/lock/app/")).isEqualTo(Path.of("/var/lock/app"));
        assertThat(FileUri.parse("file://localhost/var/lock/my%20app")).isEqualTo(Path.of("/var/lock/my app"));
        assertThatThrownBy(() -> FileUri.parse("file://server/share")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("server");
        assertThatThrownBy(() -> FileUri.parse("file:relative/dir")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> FileUri.parse("file:///x?sync=false")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("query");
        FileLockClient c = open();
        assertThat(c.directory()).isEqualTo(dir.toAbsolutePath());
        assertThat(c).isInstanceOf(FileLockClient.class);
    }

    @Test
    void hostileNamesStayInsideTheDirectoryAndAreDistinct() throws Exception {
        FileLockClient a = open();
        FileLockClient b = open();
        List<String> names = List.of("../../escape", "/etc/passwd", "..", ".", "a/b", "a\\b", "..\\..\\x",
                "C:\\x", "C:x", "lk-0.lock", "latchkey.state", "x".repeat(512), "Lock", "lock", "LOCK",
                "ß", "SS", "ﬁ", "fi", "e\u0301", "\u00e9", "锁-🔒", " ", "*", "?", "%2e%2e%2f");
        List<DistributedLock> held = new ArrayList<>();
        for (String name : names) {
            DistributedLock lock = a.lock(name);
            assertThat(lock.tryLock()).as("lock %s", name).isTrue();
            held.add(lock);
            Path file = a.lockFile(name);
            assertThat(file.getParent()).isEqualTo(a.directory());
            assertThat(file.getFileName().toString()).matches("lk-[0-9a-f]{64}\\.lock");
            assertThat(catFile(file)).contains("\nname " + name + "\n");
        }
        for (String name : names) {
            assertThat(b.lock(name).tryLock()).as("held name %s from another client", name).isFalse();
        }
        // one file per held name (case- and normalisation-variants included), nothing outside the directory
        assertThat(files()).hasSize(names.size() + 1).contains("latchkey.state");
        try (Stream<Path> s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("locks");
        }
        assertThat(a.list("*")).extracting(LockInfo::name).containsExactlyInAnyOrderElementsOf(names);
        for (DistributedLock lock : held) {
            lock.unlock();
        }
        assertThat(files()).containsExactly("latchkey.state");
    }

    @Test
    void aFreeLockLeavesNoFileBehind() throws Exception {
        FileLockClient a = open();
        FileLockClient b = open();
        DistributedLock lock = a.lock("plain");
        lock.lock();
        lock.lock();
        lock.unlock();
        assertThat(files()).hasSize(2);
        lock.unlock();
        DistributedLock fair = a.fairLock("fair");
        fair.lock();
        // a waiter of another client that gives up, one that is interrupted
        assertThat(b.fairLock("fair").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        CompletableFuture<Optional<LockLease>> pending = b.fairLock("fair").tryAcquireAsync(Duration.ofSeconds(30),
                null);
        Thread.sleep(100);
        pending.cancel(true);
        fair.unlock();
        DistributedReadWriteLock rw = a.readWriteLock("rw");
        rw.writeLock().lock();
        rw.readLock().lock();
        rw.writeLock().unlock();
        assertThat(b.readWriteLock("rw").readLock().tryLock()).as("a reader after the downgrade").isTrue();
        b.readWriteLock("rw").readLock().unlock();
        rw.readLock().unlock();
        a.lock("expires").lock(Duration.ofMillis(200));
        await().atMost(SLACK).until(() -> files().equals(List.of("latchkey.state")));
        assertThat(b.lock("expires").tryLock()).isTrue();
        b.lock("expires").unlock();
        assertThat(files()).containsExactly("latchkey.state");
    }

    @Test
    void tokensPersistAcrossRestartsOfEveryProcess() throws Exception {
        long last;
        try (FileLockClient first = FileLockClient.connect(uri)) {
            try (LockLease lease = first.lock("t").acquire()) {
                last = lease.fencingToken();
            }
        }
        // every client of this JVM closed: the directory's threads are gone and its state is on disk only
        assertThat(Files.readString(dir.resolve("latchkey.state"))).containsPattern("last-token 0*" + last + "\n");
        long child;
        try (ChildJvm holder = ChildJvm.start("restart", LockHolderMain.class, uri, "t", "1000")) {
            child = Long.parseLong(holder.awaitLine("LOCKED", START_UP).substring(7));
        }
        assertThat(child).isGreaterThan(last);
        try (FileLockClient again = FileLockClient.connect(uri)) {
            try (LockLease lease = again.lock("t").acquire()) {
                assertThat(lease.fencingToken()).isGreaterThan(child);
                last = lease.fencingToken();
            }
        }
        // the counter file lost too (a tmpfs lock directory after a reboot): the clock term keeps tokens growing
        Files.delete(dir.resolve("latchkey.state"));
        try (FileLockClient afterLoss = FileLockClient.connect(uri)) {
            try (LockLease lease = afterLoss.lock("t").acquire()) {
                assertThat(lease.fencingToken()).isGreaterThan(last);
            }
        }
    }

    @Test
    void afterARebootTokensStartAboveTheDurableCeiling() throws Exception {
        // as a power loss leaves it: the last tokens' writes lost, the clock stepped back an hour, a new boot id
        long hourAhead = (System.currentTimeMillis() + 3_600_000L) * 1_000L;
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("latchkey.state"), "latchkey-state 2\nboot 00000000-0000-0000-0000-000000000000"
                + "\nlast-token 00000000000000000005\nceiling " + hourAhead + "\n");
        try (FileLockClient c = FileLockClient.connect(uri)) {
            try (LockLease lease = c.lock("t").acquire()) {
                assertThat(lease.fencingToken()).isGreaterThan(hourAhead);
            }
            try (LockLease lease = c.lock("t").acquire()) {
                assertThat(lease.fencingToken()).isGreaterThan(hourAhead + 1);
            }
        }
    }

    @Test
    void clientsOpenedAndClosedConcurrentlyNeverShareADirectoryWithAClosingOne() throws Exception {
        List<CompletableFuture<Long>> runs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                long last = 0;
                for (int i = 0; i < 15; i++) {
                    try (FileLockClient c = FileLockClient.connect(uri)) {
                        try (LockLease lease = c.lock("churn").acquire(Duration.ofSeconds(10))) {
                            assertThat(lease.fencingToken()).isGreaterThan(last);
                            last = lease.fencingToken();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }
                return last;
            }));
        }
        for (CompletableFuture<Long> run : runs) {
            assertThat(run.get(60, TimeUnit.SECONDS)).isPositive();
        }
        assertThat(files()).containsExactly("latchkey.state");
    }

    @Test
    void twoJvmsExcludeEachOtherAndAReleaseWakesTheOtherPromptly() throws Exception {
        FileLockClient c = open();
        DistributedLock lock = c.lock("shared-name");
        try (ChildJvm holder = ChildJvm.start("holder", LockHolderMain.class, uri, "shared-name", "1000")) {
            long childToken = Long.parseLong(holder.awaitLine("LOCKED", START_UP).substring(7));
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.isLocked()).isTrue();
            List<LockInfo> held = c.list("shared-*");
            assertThat(held).hasSize(1);
            assertThat(held.get(0).fencingToken()).hasValue(childToken);
            assertThat(held.get(0).owner()).doesNotStartWith(c.clientId());
            assertThat(held.get(0).remainingLease()).get().matches(d -> !d.isNegative() && d.toMillis() <= 1000);
            Thread.sleep(1500); // longer than the child's watchdog timeout: it renews
            assertThat(lock.tryLock()).isFalse();
            CompletableFuture<LockLease> waiting = lock.acquireAsync();
            Thread.sleep(300);
            assertThat(waiting).isNotDone();
            holder.close(); // the child releases
            LockLease lease = waiting.get(SLACK.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(lease.fencingToken()).isGreaterThan(childToken);
            lease.release();
        }
        assertThat(files()).containsExactly("latchkey.state");
    }

    @Test
    void threeJvmsIncrementingUnderTheLockLoseNoUpdate() throws Exception {
        Path counter = root.resolve("counter.txt");
        int times = 150;
        FileLockClient c = open();
        try (ChildJvm a = ChildJvm.start("counter-a", CounterMain.class, uri, "counter", counter.toString(),
                Integer.toString(times));
             ChildJvm b = ChildJvm.start("counter-b", CounterMain.class, uri, "counter", counter.toString(),
                     Integer.toString(times))) {
            a.awaitLine("STARTED", START_UP);
            b.awaitLine("STARTED", START_UP);
            long start = System.nanoTime();
            CounterMain.increment(c.lock("counter"), counter, times);
            a.awaitLine("DONE", Duration.ofSeconds(60));
            b.awaitLine("DONE", Duration.ofSeconds(60));
            System.out.printf("file backend: 3 JVMs, %d contended increments in %d ms%n", 3 * times,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        assertThat(Files.readString(counter).trim()).isEqualTo(Integer.toString(3 * times));
        assertThat(files()).containsExactly("latchkey.state");
    }

    /**
     * Regression (a lost update in {@link #threeJvmsIncrementingUnderTheLockLoseNoUpdate} under load in CI): a
     * release must free the OS lock inside the directory section. It used to free it first and enter the section
     * afterwards (to rewrite or delete the file); in between, other processes could lock the old file, delete it, and
     * create and lock a new one at the path, and then this JVM, probing its unlinked old file, found it free and
     * deleted the new holder's file, so that the next locker created a third file: two holders. The child holds the
     * section while this JVM unlocks and plays those other processes if the OS lock comes free.
     */
    @Test
    void aReleaseFreesTheOsLockOnlyInsideTheDirectorySection() throws Exception {
        FileLockClient c = open();
        Path file = c.lockFile("raced");
        java.util.concurrent.CountDownLatch locked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            DistributedLock lock = c.lock("raced");
            lock.lock();
            locked.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            lock.unlock();
        });
        assertThat(locked.await(SLACK.toSeconds(), TimeUnit.SECONDS)).isTrue();
        try (ChildJvm intruder = ChildJvm.start("intruder", SectionIntruderMain.class, dir.toString(),
                file.toString(), "2000")) {
            intruder.awaitLine("SECTION", START_UP);
            go.countDown();
            String result = intruder.awaitLine("RESULT", Duration.ofSeconds(30));
            holder.get(30, TimeUnit.SECONDS);
            if (result.equals("RESULT TOOK")) {
                // the intruder holds the file now at the path: nobody else may get the lock
                assertThat(c.lock("raced").tryLock()).as("a second holder while the intruder holds").isFalse();
            }
            assertThat(result).as("the OS lock came free while another process was in the directory section")
                    .isEqualTo("RESULT NEVER_FREE");
        }
        await().atMost(SLACK).until(() -> files().equals(List.of("latchkey.state")));
    }

    @Test
    void aKilledHoldersFileIsTakenOverAndCleanedUp() throws Exception {
        FileLockClient c = open();
        try (ChildJvm holder = ChildJvm.start("victim", LockHolderMain.class, uri, "victim", "1000")) {
            holder.awaitLine("LOCKED", START_UP);
            assertThat(c.lock("victim").isLocked()).isTrue();
            holder.kill();
        }
        // the kernel released the lock; the dead process's file is still there until someone looks
        assertThat(files()).hasSize(2);
        assertThat(c.lock("victim").isLocked()).isFalse();
        assertThat(c.list("*")).isEmpty();
        assertThat(files()).containsExactly("latchkey.state");
    }

    @Test
    void forceUnlockEndsAnotherProcesssHoldAtItsNextRenewal() throws Exception {
        FileLockClient c = open();
        try (ChildJvm holder = ChildJvm.start("forced", LockHolderMain.class, uri, "forced", "1000")) {
            holder.awaitLine("LOCKED", START_UP);
            DistributedLock lock = c.lock("forced");
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.forceUnlock()).isTrue();
            assertThat(lock.tryLock(SLACK.toMillis(), TimeUnit.MILLISECONDS)).as("free after the child's renewal")
                    .isTrue();
            lock.unlock();
        }
    }

    @Test
    void fairLockIsFifoAcrossProcesses() throws Exception {
        FileLockClient c = open();
        FileLockClient other = open();
        DistributedLock holder = c.fairLock("fifo");
        holder.lock();
        Path file = c.lockFile("fifo");
        try (ChildJvm first = ChildJvm.start("first", KindHolderMain.class, uri, "fair", "fifo", "200")) {
            first.awaitLine("WAITING", START_UP);
            await().atMost(SLACK).until(() -> waitLines(file) == 1);
            CompletableFuture<Long> local = CompletableFuture.supplyAsync(() -> {
                DistributedLock l = other.fairLock("fifo");
                l.lock();
                try {
                    return l.fencingToken().getAsLong();
                } finally {
                    l.unlock();
                }
            });
            await().atMost(SLACK).until(() -> waitLines(file) == 2);
            try (ChildJvm third = ChildJvm.start("third", KindHolderMain.class, uri, "fair", "fifo", "0")) {
                third.awaitLine("WAITING", START_UP);
                await().atMost(SLACK).until(() -> waitLines(file) == 3);
                holder.unlock();
                long firstToken = Long.parseLong(first.awaitLine("LOCKED", SLACK).substring(7));
                long localToken = local.get(SLACK.toMillis(), TimeUnit.MILLISECONDS);
                long thirdToken = Long.parseLong(third.awaitLine("LOCKED", SLACK).substring(7));
                assertThat(List.of(firstToken, localToken, thirdToken)).as("tokens in grant order").isSorted();
                third.awaitLine("RELEASED", SLACK);
            }
            first.awaitLine("RELEASED", SLACK);
        }
        await().atMost(SLACK).until(() -> files().equals(List.of("latchkey.state")));
    }

    @Test
    void readersShareAndWritersExcludeAcrossProcesses() throws Exception {
        FileLockClient c = open();
        DistributedReadWriteLock rw = c.readWriteLock("catalog");
        try (ChildJvm reader = ChildJvm.start("reader", KindHolderMain.class, uri, "read", "catalog", "1500")) {
            reader.awaitLine("LOCKED", START_UP);
            assertThat(rw.readLock().tryLock()).as("a reader beside another process's reader").isTrue();
            rw.readLock().unlock();
            assertThat(rw.writeLock().tryLock()).as("a writer while another process reads").isFalse();
            assertThat(rw.writeLock().tryLock(SLACK.toMillis() * 2, TimeUnit.MILLISECONDS))
                    .as("the writer once that process released").isTrue();
            reader.awaitLine("RELEASED", SLACK);
        }
        try (ChildJvm reader = ChildJvm.start("blocked-reader", KindHolderMain.class, uri, "read", "catalog", "0")) {
            reader.awaitLine("WAITING", START_UP);
            Thread.sleep(500);
            assertThat(reader.printed("LOCKED")).as("another process read while the write lock was held").isFalse();
            long writeToken = rw.writeLock().fencingToken().getAsLong();
            rw.writeLock().unlock();
            long readToken = Long.parseLong(reader.awaitLine("LOCKED", SLACK).substring(7));
            assertThat(readToken).isGreaterThan(writeToken);
            reader.awaitLine("RELEASED", SLACK);
        }
        await().atMost(SLACK).until(() -> files().equals(List.of("latchkey.state")));
    }

    private static long waitLines(Path file) throws Exception {
        return catFile(file).lines().filter(l -> l.startsWith("wait ")).count();
    }

    /**
     * A lock file's text, read by another process: opening and closing a lock file inside a process that holds its
     * OS lock would drop that lock (POSIX record-lock semantics), so tests, like operators, read it from outside.
     */
    private static String catFile(Path file) throws Exception {
        Process cat = new ProcessBuilder("cat", file.toString()).redirectErrorStream(true).start();
        String text = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        cat.waitFor(10, TimeUnit.SECONDS);
        return cat.exitValue() == 0 ? text : "";
    }

    @Test
    void inspectListsEveryKindOfHold() throws Exception {
        FileLockClient c = open(ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3)).namespace("app/")
                .build());
        FileLockClient otherNamespace = open(ClientOptions.builder().namespace("other/").build());
        DistributedLock plain = c.lock("orders:1");
        plain.lock(Duration.ofSeconds(30));
        DistributedLock fair = c.fairLock("orders:2");
        fair.lock();
        DistributedReadWriteLock rw = c.readWriteLock("catalog");
        rw.readLock().lock();
        CompletableFuture.runAsync(() -> open(ClientOptions.builder().namespace("app/").build())
                .readWriteLock("catalog").readLock().lock()).get(5, TimeUnit.SECONDS);
        otherNamespace.lock("orders:1").lock();
        List<LockInfo> all = c.list(null);
        assertThat(all).extracting(LockInfo::name).containsExactly("catalog", "catalog", "orders:1", "orders:2");
        assertThat(all).extracting(LockInfo::kind).containsExactly("read-lock", "read-lock", "lock", "fair-lock");
        LockInfo orders = c.list("orders:1").get(0);
        assertThat(orders.owner()).startsWith(c.clientId());
        assertThat(orders.fencingToken()).hasValue(plain.fencingToken().getAsLong());
        assertThat(orders.remainingLease().get()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
        assertThat(otherNamespace.list("*")).extracting(LockInfo::name).containsExactly("orders:1");
        plain.unlock();
        fair.unlock();
        rw.readLock().unlock();
    }
}
