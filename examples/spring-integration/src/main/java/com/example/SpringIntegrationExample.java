package com.example;

import io.latchkey.LockClient;
import io.latchkey.spring.integration.LatchkeyLockRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** java ... com.example.SpringIntegrationExample redis://127.0.0.1:6379: a registry lock, then leadership, exit 0. */
public class SpringIntegrationExample {
    public static void main(String[] args) throws InterruptedException {
        String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        try (LockClient client = LockClient.connect(uri)) {
            LatchkeyLockRegistry registry = new LatchkeyLockRegistry(client);

            Lock lock = registry.obtain("example-invoice");
            lock.lock();
            try {
                System.out.println("LockRegistry: holding example-invoice");
            } finally {
                lock.unlock();
            }

            CountDownLatch granted = new CountDownLatch(1);
            LockRegistryLeaderInitiator leader = new LockRegistryLeaderInitiator(registry, new DefaultCandidate("node-1", "example-leader") {
                @Override
                public void onGranted(Context context) {
                    System.out.println("leader election: node-1 leads example-leader");
                    granted.countDown();
                }
            });
            leader.setLeaderEventPublisher(new DefaultLeaderEventPublisher(event -> { }));
            leader.start();
            try {
                if (!granted.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("leadership was never granted");
                }
            } finally {
                leader.stop();
            }
        }
    }
}
