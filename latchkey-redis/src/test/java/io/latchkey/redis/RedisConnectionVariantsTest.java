package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.acquireNow;
import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Capability;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.core.Grant;
import io.latchkey.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ACL users, TLS, databases and an application's own Lettuce client. */
class RedisConnectionVariantsTest {

    @RegisterExtension
    static RedisServerExtension plain = RedisServerExtension.standalone();

    @RegisterExtension
    static RedisServerExtension acl = RedisServerExtension.withAcl();

    @RegisterExtension
    static RedisServerExtension tls = RedisServerExtension.withTls();

    /** Redis 7 gives new ACL users no channel access unless granted: no SUBSCRIBE, no PUBLISH. */
    @RegisterExtension
    static RedisServerExtension noChannels = RedisServerExtension.builder().aclUser("app", "pw", "~* +@all").build();

    @Test
    void aclUserAndPasswordFromTheUri() throws Exception {
        try (LockClient client = LockClient.connect(acl.uri(), fastOptions())) {
            assertThat(client).isInstanceOf(RedisLockClient.class);
            assertThat(client.toString()).doesNotContain("secret").contains("127.0.0.1:" + acl.port());
            lockAndUnlock((RedisLockClient) client);
        }
    }

    @Test
    void wrongPasswordFailsWithoutShowingIt() {
        String uri = "redis://latchkey:wrong-pass-123@127.0.0.1:" + acl.port();
        assertThatThrownBy(() -> LockClient.connect(uri, fastOptions()))
                .isInstanceOf(LockException.class)
                .satisfies(e -> {
                    for (Throwable t = e; t != null; t = t.getCause()) {
                        assertThat(String.valueOf(t.getMessage())).doesNotContain("wrong-pass-123");
                    }
                });
    }

    @Test
    void tlsWithTheApplicationsLettuceClient() throws Exception {
        RedisURI uri = RedisURI.create(tls.uri());
        RedisClient lettuce = RedisClient.create(uri);
        lettuce.setOptions(io.lettuce.core.ClientOptions.builder()
                .sslOptions(SslOptions.builder().truststore(tls.trustStore().toFile(), tls.trustStorePassword())
                        .build())
                .build());
        try {
            try (RedisLockClient client = RedisLockClient.create(lettuce, fastOptions())) {
                assertThat(client.address()).isEqualTo("127.0.0.1:" + tls.port());
                lockAndUnlock(client);
            }
            // Closing the lock client leaves the application's client usable.
            try (var connection = lettuce.connect()) {
                assertThat(connection.sync().ping()).isEqualTo("PONG");
            }
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void tlsFromARedissUri() throws Exception {
        // The JVM does not trust the test CA; verifyPeer=NONE is Lettuce's URI switch for that.
        try (LockClient client = LockClient.connect(tls.uri() + "?verifyPeer=NONE", fastOptions())) {
            lockAndUnlock((RedisLockClient) client);
        }
    }

    @Test
    void databaseFromTheUriPath() throws Exception {
        String name = uniqueName("db");
        try (RedisLockClient client = (RedisLockClient) LockClient.connect(plain.uri() + "/3", fastOptions())) {
            Grant g = acquireNow(client.redisLockOps(), name, owner(), 10_000);
            assertThat(plain.execute("EXISTS", name)).as("not in db 0").isEqualTo(0L);
            client.redisLockOps().release(g).get();
        }
    }

    @Test
    void aUserWithoutChannelAccessStillLocksAndWaitsAtTheHoldersLease() throws Exception {
        String name = uniqueName("no-channels");
        try (RedisLockClient holder = (RedisLockClient) LockClient.connect(noChannels.uri(), fastOptions());
             RedisLockClient waiter = (RedisLockClient) LockClient.connect(noChannels.uri(), fastOptions())) {
            Grant held = acquireNow(holder.redisLockOps(), name, owner(), 700);
            long start = System.nanoTime();
            java.util.concurrent.CompletableFuture<io.latchkey.LockLease> waiting = waiter.lock(name).acquireAsync();
            Thread.sleep(200);
            assertThat(holder.redisLockOps().release(held).get()).as("released although PUBLISH is denied").isTrue();
            io.latchkey.LockLease got = waiting.get(5, java.util.concurrent.TimeUnit.SECONDS);
            long waitedMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(got).isNotNull();
            assertThat(waitedMs).as("woken by the re-check at the holder's lease").isBetween(400L, 2_000L);
            org.awaitility.Awaitility.await().until(() -> waiter.subscriptions().size() == 0);
            got.release();
        }
    }

    @Test
    void capabilities() {
        try (LockClient client = LockClient.connect(plain.uri(), fastOptions())) {
            assertThat(client.capabilities())
                    .contains(Capability.LOCK, Capability.PUSH_WAKEUP, Capability.INSPECT); // synchronizers vary
        }
    }

    private static void lockAndUnlock(RedisLockClient client) throws Exception {
        String name = uniqueName("variant");
        Grant g = acquireNow(client.redisLockOps(), name, owner(), 10_000);
        assertThat(g).isNotNull();
        assertThat(client.redisLockOps().isLocked(name).get()).isTrue();
        assertThat(client.redisLockOps().release(g).get()).isTrue();
    }
}
