package io.latchkey.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.spi.LockInfo;
import io.latchkey.tck.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the file backend adds to the counted primitives' TCKs: state files (names, text, which stay, which go),
 * {@code inspect}, and three real processes sharing one permit without overlap or loss (killed permit holders and
 * racing count-downs of several JVMs: {@link FileCountedMultiProcessTckTest}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FileCountedPrimitivesTest extends FileDirectoryTest {

    @Test
    void stateFilesNameTheirPrimitiveStayWhileSetAndAnOpenLatchLeavesNone() throws Exception {
        FileLockClient c = open();
        String hostile = "../../etc/passwd\\x";
        DistributedSemaphore semaphore = c.semaphore(hostile);
        assertThat(semaphore.trySetPermits(3)).isTrue();
        Path semaphoreFile = c.stateFile("semaphore", hostile);
        assertThat(semaphoreFile.getParent()).isEqualTo(c.directory());
        assertThat(semaphoreFile.getFileName().toString()).matches("lk-[0-9a-f]{64}\\.semaphore");
        assertThat(Files.readString(semaphoreFile, StandardCharsets.UTF_8))
                .contains("kind semaphore\n", "name " + hostile + "\n", "count 3\n").endsWith("end\n");
        semaphore.acquire(2);
        assertThat(Files.readString(semaphoreFile)).contains("count 1\n");

        PermitExpirableSemaphore permits = c.permitExpirableSemaphore(hostile);
        permits.trySetPermits(2);
        String id = permits.acquire(Duration.ofSeconds(30));
        assertThat(Files.readString(c.stateFile("permits", hostile))).contains("count 2\n")
                .containsPattern("lease \\d+ \\d+ fixed " + id + "\n");

        DistributedCountDownLatch latch = c.countDownLatch(hostile);
        assertThat(latch.trySetCount(2)).isTrue();
        Path latchFile = c.stateFile("latch", hostile);
        assertThat(Files.readString(latchFile)).contains("count 2\n");
        latch.countDown();
        latch.countDown();
        assertThat(latch.getCount()).isZero();
        assertThat(latchFile).doesNotExist();
        assertThat(files()).as("one file per semaphore that was set, none per open latch, no temporary file")
                .containsExactlyInAnyOrder("latchkey.state", semaphoreFile.getFileName().toString(),
                        c.stateFile("permits", hostile).getFileName().toString());
        assertThat(permits.release(id)).isTrue();
        assertThat(Files.readString(c.stateFile("permits", hostile))).doesNotContain("lease ");
        assertThatThrownBy(() -> c.stateFile("lock", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("semaphore, permits or latch");
    }

    @Test
    void aTemporaryFileLeftByAKilledWriterIsSweptAtStart() throws Exception {
        Files.createDirectories(dir);
        String leftover = "lk-" + "0".repeat(64) + ".latch.tmp";
        Files.writeString(dir.resolve(leftover), "latchkey-count 1\n");
        Files.writeString(dir.resolve("unrelated.tmp"), "not ours");
        FileLockClient c = open();
        assertThat(c.countDownLatch("x").getCount()).isZero(); // runs after the start-up sweep
        assertThat(files()).containsExactly("latchkey.state", "unrelated.tmp");
    }

    @Test
    void aDamagedStateFileFailsItsOperationsWithTheReason() throws Exception {
        FileLockClient c = open();
        Files.createDirectories(dir);
        Files.writeString(c.stateFile("semaphore", "broken"), "latchkey-count 1\nkind semaphore\ncount 3\n");
        assertThatThrownBy(() -> c.semaphore("broken").availablePermits())
                .isInstanceOf(io.latchkey.LockUnavailableException.class).hasMessageContaining("damaged");
        assertThat(c.list("*")).as("inspect skips it").isEmpty();
    }

    @Test
    void aReleaseThatCouldNotBeWrittenIsRetriedUntilItIs() throws Exception {
        FileLockClient c = open();
        PermitExpirableSemaphore permits = c.permitExpirableSemaphore("retried");
        permits.trySetPermits(1);
        String id = permits.acquire(Duration.ofSeconds(60));
        Path tmp = c.stateFile("permits", "retried").resolveSibling(
                c.stateFile("permits", "retried").getFileName() + ".tmp");
        Files.createDirectory(tmp); // the new text cannot be written: as on a full disk
        assertThatThrownBy(() -> permits.release(id)).isInstanceOf(io.latchkey.LockUnavailableException.class);
        assertThat(permits.availablePermits()).isZero();
        Files.delete(tmp);
        long start = System.nanoTime();
        org.awaitility.Awaitility.await().atMost(SLACK).until(() -> permits.availablePermits() == 1);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("well before the 60 s lease")
                .isLessThan(SLACK.toMillis());
    }

    @Test
    void inspectListsSemaphoresPermitsAndLatches() throws Exception {
        FileLockClient c = open(ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3)).namespace("app/")
                .build());
        FileLockClient otherNamespace = open(ClientOptions.builder().namespace("other/").build());
        DistributedLock plain = c.lock("plain");
        plain.lock();
        c.semaphore("sem").trySetPermits(3);
        c.semaphore("sem").acquire(1);
        PermitExpirableSemaphore permits = c.permitExpirableSemaphore("permits");
        permits.trySetPermits(2);
        String permit = permits.acquire(Duration.ofSeconds(20));
        c.permitExpirableSemaphore("idle").trySetPermits(4);
        c.countDownLatch("latch").trySetCount(2);
        otherNamespace.semaphore("sem").trySetPermits(1);

        List<LockInfo> all = c.list("*");
        assertThat(all).extracting(LockInfo::name, LockInfo::kind).containsExactly(
                tuple("idle", "permit-semaphore"),
                tuple("latch", "latch"),
                tuple("permits", "permit"),
                tuple("plain", "lock"),
                tuple("sem", "semaphore"));
        assertThat(all).extracting(LockInfo::owner).containsExactly(LockInfo.NO_OWNER, LockInfo.NO_OWNER, permit,
                all.get(3).owner(), LockInfo.NO_OWNER);
        assertThat(all.get(3).owner()).startsWith(c.clientId());
        assertThat(all).extracting(LockInfo::detail).containsExactly("4 of 4 permits available", "count 2",
                "1 of 2 permits available", "", "2 permits available");
        assertThat(all.get(2).fencingToken()).isPresent();
        assertThat(all.get(2).remainingLease().orElseThrow()).isBetween(Duration.ofSeconds(10),
                Duration.ofSeconds(20));
        assertThat(otherNamespace.list("*")).extracting(LockInfo::name, LockInfo::detail)
                .containsExactly(tuple("sem", "1 permits available"));
        plain.unlock();
    }

    @Test
    void threeProcessesShareOnePermitWithoutOverlapOrLoss() throws Exception {
        int rounds = 50;
        FileLockClient c = open();
        DistributedSemaphore semaphore = c.semaphore("one");
        DistributedCountDownLatch go = c.countDownLatch("one:go");
        assertThat(semaphore.trySetPermits(1)).isTrue();
        assertThat(go.trySetCount(1)).isTrue();
        Path marker = root.resolve("inside");
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start("semaphore-" + i, CountedMain.class, "semaphore", uri, "one",
                        Integer.toString(rounds), marker.toString()));
            }
            for (ChildJvm child : children) {
                child.awaitLine("READY", START_UP);
            }
            long start = System.nanoTime();
            go.countDown();
            for (ChildJvm child : children) {
                child.awaitLine("DONE", Duration.ofSeconds(90));
            }
            System.out.printf("%d acquire+release of one permit by 3 JVMs in %d ms%n", 3 * rounds,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            assertThat(semaphore.availablePermits()).as("every permit returned").isEqualTo(1);
            assertThat(marker).doesNotExist();
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }
}
