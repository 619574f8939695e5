package io.latchkey.cli;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Starts the lock servers that need no installation: an in-process ZooKeeper once the ZooKeeper backend module
 * offers {@code EmbeddedZooKeeper}.
 */
final class EmbeddedLockServers {

    private EmbeddedLockServers() {
    }

    static void start(Path dir, Duration timeout, DemoEnvironment env) {
        env.note("the ZooKeeper backend is not built into this jar yet: the embedded ZooKeeper strategies are not shown");
    }
}
