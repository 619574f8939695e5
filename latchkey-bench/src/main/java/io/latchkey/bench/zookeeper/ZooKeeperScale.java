package io.latchkey.bench.zookeeper;

import static io.latchkey.bench.ProgramArgs.option;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import io.latchkey.zookeeper.ZooKeeperLockClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * The ZooKeeper row of the {@code scale} suite: N distinct names locked and released once each (parallel threads,
 * one client per side), then the znodes left under each side's root: right after, and after the server's container
 * check ran (what a real server does every {@code znode.container.checkIntervalMs}, 60 s by default). Latchkey
 * against Curator's {@code InterProcessMutex}, on one embedded server.
 *
 * <p>Usage: {@code ZooKeeperScale [--names N] [--threads N]}.
 */
public final class ZooKeeperScale {

    private ZooKeeperScale() {
    }

    @FunctionalInterface
    private interface Cycle {
        void run(String name) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int names = Integer.parseInt(option(args, "--names", "20000"));
        int threads = Integer.parseInt(option(args, "--threads", "8"));
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().containerCheckInterval(Duration.ofHours(1)).start();
             ZooKeeperLockClient latchkey = ZooKeeperLockClient.connect(zk.uri(),
                     ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30)).build());
             CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(zk.connectString())
                     .sessionTimeoutMs(30_000).retryPolicy(new ExponentialBackoffRetry(50, 5)).build()) {
            curator.start();
            curator.blockUntilConnected(30, TimeUnit.SECONDS);
            long[][] r = new long[2][];
            r[0] = side("Latchkey", zk, curator, "/latchkey", names, threads, name -> {
                DistributedLock lock = latchkey.lock(name);
                lock.lock();
                lock.unlock();
            });
            r[1] = side("Curator InterProcessMutex", zk, curator, "/curator-scale", names, threads, name -> {
                InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-scale/locks/" + name);
                mutex.acquire();
                mutex.release();
            });
            System.out.println();
            System.out.printf(Locale.ROOT, "ZooKeeper (embedded), %,d distinct names locked and released once, %d threads%n",
                    names, threads);
            System.out.println("| znodes left | Latchkey | Curator InterProcessMutex |");
            System.out.println("|---|---:|---:|");
            System.out.printf(Locale.ROOT, "| right after release | %,d | %,d |%n", r[0][0], r[1][0]);
            System.out.printf(Locale.ROOT, "| after the server's container check | %,d | %,d |%n", r[0][1], r[1][1]);
            System.out.printf(Locale.ROOT, "| time the container check took (ms) | %,d | %,d |%n", r[0][2], r[1][2]);
        }
    }

    private static long[] side(String label, EmbeddedZooKeeper zk, CuratorFramework curator, String root, int names,
                               int threads, Cycle cycle) throws Exception {
        AtomicInteger next = new AtomicInteger();
        List<Thread> ts = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
                        cycle.run("order-" + i);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "bench-zk-scale-" + t);
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = count(curator, root);
        long reapStart = System.nanoTime();
        long reaped = after;
        for (int i = 0; i < 5 && reaped > 0; i++) {
            zk.reapEmptyContainers();
            Thread.sleep(500);
            reaped = count(curator, root);
        }
        long reapMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reapStart);
        System.out.printf(Locale.ROOT, "%s: %,d names in %.1f s (%,.0f/s): %,d znodes left, %,d after the container "
                + "check (%,d ms)%n", label, names, seconds, names / seconds, after, reaped, reapMillis);
        return new long[] {after, reaped, reapMillis};
    }

    private static long count(CuratorFramework zk, String root) throws Exception {
        long n = 0;
        Deque<String> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            String path = todo.pop();
            List<String> children;
            try {
                children = zk.getChildren().forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue;
            }
            n++;
            for (String c : children) {
                todo.push(path + "/" + c);
            }
        }
        return n;
    }

}
