package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.sql.SqlServerExtension;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The threads a client of each backend starts, as {@code docs/concurrency.md} lists them: one client per backend
 * uses every primitive it offers (a held lock, a timed wait on a held lock, a semaphore, a permit, a latch), then
 * the test lists the threads that appeared in this JVM and checks that each is named {@code latchkey-…} or belongs
 * to the backend's driver, and that every one of them is gone once the client is closed. The names are printed, so
 * that the document can be checked against a run.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientThreadsTest {

    @RegisterExtension
    static final SqlServerExtension POSTGRES = SqlServerExtension.postgres();

    private static RedisServer redis;
    private static EtcdServer etcd;
    private static EmbeddedZooKeeper zookeeper;

    private static final ClientOptions OPTIONS = ClientOptions.builder()
            .watchdogTimeout(Duration.ofSeconds(3))
            .operationTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeAll
    static void servers() throws Exception {
        redis = RedisServer.standalone().start();
        etcd = EtcdServer.started();
        zookeeper = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (etcd != null) {
            etcd.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void mem() throws Exception {
        check("mem", () -> LockClient.connect("mem://threads", OPTIONS));
    }

    @Test
    void file() throws Exception {
        Path dir = Files.createTempDirectory("latchkey-threads");
        check("file", () -> LockClient.connect(dir.toUri().toString(), OPTIONS));
    }

    @Test
    void redis() throws Exception {
        check("redis", () -> LockClient.connect(redis.uri(), OPTIONS));
    }

    @Test
    void etcd() throws Exception {
        check("etcd", () -> LockClient.connect(etcd.uri(), OPTIONS));
    }

    @Test
    void zookeeper() throws Exception {
        check("zookeeper", () -> LockClient.connect(zookeeper.uri(), OPTIONS));
    }

    @Test
    void postgres() throws Exception {
        check("jdbc", () -> LockClient.connect(POSTGRES.jdbcUrl(), OPTIONS));
    }

    private static void check(String backend, Supplier<LockClient> connect) throws Exception {
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        LockClient client = connect.get();
        List<Thread> started;
        try {
            use(client);
            started = new ArrayList<>(Thread.getAllStackTraces().keySet());
            started.removeAll(before);
            started.removeIf(t -> !t.isAlive());
        } finally {
            client.close();
        }
        Set<String> names = new TreeSet<>();
        started.forEach(t -> names.add(t.getName() + (t.isDaemon() ? "" : " (not a daemon)")));
        System.out.printf("[threads] %s: %d threads%n", backend, names.size());
        names.forEach(n -> System.out.printf("[threads] %s:   %s%n", backend, n));
        // Every thread of ours is named latchkey-…; the drivers' own threads keep their names (Lettuce, Curator,
        // ZooKeeper, gRPC/Vert.x, HikariCP, the PostgreSQL driver).
        for (Thread t : started) {
            assertThat(t.getName()).as(backend).doesNotMatch("Thread-\\d+|pool-\\d+-thread-\\d+");
            // one scheduler per client, the engine's (the watchdog thread): a backend starts no timer thread of its own
            assertThat(t.getName()).as(backend).doesNotMatch("latchkey-.*-(timer|session)-.*|latchkey-zookeeper-\\d+-\\d+");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<Thread> alive = new ArrayList<>(started);
        while (true) {
            alive.removeIf(t -> !t.isAlive() || !t.getName().startsWith("latchkey-"));
            if (alive.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(50);
        }
        assertThat(alive).as("%s threads still running after close()", backend).isEmpty();
        Thread.sleep(2_000);
        started.stream().filter(Thread::isAlive).forEach(t -> System.out.printf(
                "[threads] %s: still alive after close: %s%n", backend, t.getName()));
    }

    private static void use(LockClient client) throws Exception {
        DistributedLock lock = client.lock("threads-lock");
        LockLease lease = lock.acquire();
        try {
            Optional<LockLease> other = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        try {
                            return lock.tryAcquire(Duration.ofMillis(100));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return Optional.<LockLease>empty();
                        }
                    }).get(10, TimeUnit.SECONDS);
            assertThat(other).isEmpty();
        } finally {
            lease.close();
        }
        DistributedSemaphore semaphore = client.semaphore("threads-semaphore");
        semaphore.trySetPermits(1);
        semaphore.acquire(1);
        semaphore.release(1);
        PermitExpirableSemaphore permits = client.permitExpirableSemaphore("threads-permits");
        permits.trySetPermits(1);
        String id = permits.acquire(Duration.ofSeconds(30));
        permits.release(id);
        DistributedCountDownLatch latch = client.countDownLatch("threads-latch");
        latch.trySetCount(1);
        latch.countDown();
        assertThat(latch.await(Duration.ofSeconds(5))).isTrue();
    }
}
