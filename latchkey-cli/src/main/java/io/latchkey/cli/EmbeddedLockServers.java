package io.latchkey.cli;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Starts the lock servers that need no installation: a real ZooKeeper server in this process. */
final class EmbeddedLockServers {

    /** Generous: a loaded 2-core machine takes seconds to load the server's classes. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private EmbeddedLockServers() {
    }

    static void start(Path dir, Duration timeout, DemoEnvironment env) {
        EmbeddedZooKeeper zk = startZooKeeper(dir.resolve("zookeeper"));
        env.addEmbedded(new LockBackend(zk.uri(), env.uniqueLabel("zookeeper"),
                "embedded ZooKeeper server at " + zk.connectString(), timeout), zk);
    }

    /**
     * Starts the server on a named daemon thread so that a server that fails while starting (and may then hang in
     * its own shutdown) turns into a one-line error instead of a demo that never ends.
     */
    private static EmbeddedZooKeeper startZooKeeper(Path dataDir) {
        // Short ticks: sessions of clients that died with a crashed demo expire quickly; nothing else depends on it.
        FutureTask<EmbeddedZooKeeper> task = new FutureTask<>(() -> EmbeddedZooKeeper.builder()
                .dataDir(dataDir)
                .tickTime(Duration.ofMillis(500))
                .start());
        Thread starter = new Thread(task, "latchkey-demo-zookeeper-start");
        starter.setDaemon(true);
        starter.start();
        try {
            return task.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new CliException(CliException.UNAVAILABLE, String.format(
                    "the embedded ZooKeeper server did not start within %s (run with --verbose for its log, or use "
                            + "--no-embedded --backend URI)", Durations.format(START_TIMEOUT)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(CliException.UNAVAILABLE, "interrupted while starting the embedded ZooKeeper server");
        } catch (ExecutionException e) {
            throw new CliException(CliException.UNAVAILABLE,
                    "the embedded ZooKeeper server did not start: " + e.getCause(), e.getCause());
        }
    }
}
