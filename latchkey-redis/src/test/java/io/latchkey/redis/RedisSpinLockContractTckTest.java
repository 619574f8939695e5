package io.latchkey.redis;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.tck.LockContractTck;
import io.latchkey.testing.RedisServerExtension;
import java.util.Set;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCK's {@link LockContractTck} against {@link RedisLockClient#spinLock}: the lock contract holds without
 * pub/sub (a client whose {@code lock(name)} is the spin lock).
 */
class RedisSpinLockContractTckTest extends LockContractTck {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.standalone();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return new SpinClient(RedisLockClient.connect(redis.uri(), options));
    }

    @Override
    protected String backendName() {
        return "redis";
    }

    /** A client whose locks are spin locks. */
    private static final class SpinClient implements LockClient {
        private final RedisLockClient client;

        SpinClient(RedisLockClient client) {
            this.client = client;
        }

        @Override
        public DistributedLock lock(String name) {
            return client.spinLock(name);
        }

        @Override
        public DistributedLock fairLock(String name) {
            return client.fairLock(name);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name) {
            return client.readWriteLock(name);
        }

        @Override
        public DistributedSemaphore semaphore(String name) {
            return client.semaphore(name);
        }

        @Override
        public PermitExpirableSemaphore permitExpirableSemaphore(String name) {
            return client.permitExpirableSemaphore(name);
        }

        @Override
        public DistributedCountDownLatch countDownLatch(String name) {
            return client.countDownLatch(name);
        }

        @Override
        public Set<Capability> capabilities() {
            return client.capabilities();
        }

        @Override
        public String clientId() {
            return client.clientId();
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
