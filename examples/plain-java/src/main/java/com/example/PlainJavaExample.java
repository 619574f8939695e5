package com.example;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.opentelemetry.LatchkeyTelemetry;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import io.opentelemetry.api.GlobalOpenTelemetry;
import java.time.Duration;

/**
 * Locks on Redis, then on ZooKeeper (an embedded server) and on etcd when an etcd URI is given.
 *
 * <pre>java -cp ... com.example.PlainJavaExample redis://127.0.0.1:6379 [http://127.0.0.1:2379]</pre>
 */
public class PlainJavaExample {
    /**
     * A latchkey.acquire span per acquire and the lock metrics, through whatever OpenTelemetry the application has
     * (the Java agent, or an SDK registered as global); without one, the API does nothing.
     */
    static final ClientOptions OPTIONS = ClientOptions.builder()
            .eventListener(LatchkeyTelemetry.create(GlobalOpenTelemetry.get()).eventListener())
            .build();

    public static void main(String[] args) throws Exception {
        String redis = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        System.out.println("netty epoll available: " + io.netty.channel.epoll.Epoll.isAvailable());
        lockOnce(redis);
        try (EmbeddedZooKeeper zooKeeper = EmbeddedZooKeeper.start()) {
            lockOnce("zookeeper://" + zooKeeper.connectString());
        }
        if (args.length > 1) {
            lockOnce(args[1].replaceFirst("^https?://", "etcd://"));
        }
    }

    static void lockOnce(String uri) throws InterruptedException {
        try (LockClient client = LockClient.connect(uri, OPTIONS)) {
            DistributedLock lock = client.lock("example:order-42");
            try (LockLease lease = lock.acquire(Duration.ofSeconds(10))) {
                System.out.println("locked " + lock.name() + " on " + uri + " with fencing token " + lease.fencingToken());
            }
        }
    }
}
