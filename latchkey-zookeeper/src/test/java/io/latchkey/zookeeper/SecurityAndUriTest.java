package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.zookeeper.internal.ZkUri;
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/** URIs, chroot, digest credentials and creator-only ACLs, and that passwords never leak. */
class SecurityAndUriTest {

    private static final ClientOptions FAST = ClientOptions.builder().operationTimeout(Duration.ofSeconds(2)).build();

    @Test
    void parsesHostsChrootAndCredentialsWithoutShowingThePassword() {
        ZkUri uri = ZkUri.parse("zookeeper://alice:s3cr%40t@h1:2181,h2:2182/apps/locks/");
        assertThat(uri.connectString()).isEqualTo("h1:2181,h2:2182/apps/locks");
        assertThat(uri.user()).isEqualTo("alice");
        assertThat(uri.password()).isEqualTo("s3cr@t");
        assertThat(uri.toString()).doesNotContain("s3cr");
        assertThatThrownBy(() -> ZkUri.parse("zookeeper://alice:hunter2@h1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> ZkUri.parse("zookeeper://h1:99999")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZkUri.parse("zookeeper:///chroot")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZkUri.parse("zookeeper://h:1/a/../b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void chrootKeepsEverythingBelowIt() throws Exception {
        String chroot = "/chroot-" + UUID.randomUUID();
        try (CuratorFramework admin = SharedZooKeeper.curator()) {
            admin.create().forPath(chroot);
            try (ZooKeeperLockClient client = ZooKeeperLockClient.connect(SharedZooKeeper.server().uri() + chroot)) {
                DistributedLock lock = client.lock("x");
                lock.lock();
                assertThat(admin.getChildren().forPath(chroot + client.lockPath("x"))).hasSize(1);
                lock.unlock();
            }
        }
    }

    @Test
    void aMissingChrootIsMadeWithItsParents() throws Exception {
        String chroot = "/missing-" + UUID.randomUUID() + "/apps/locks";
        try (CuratorFramework admin = SharedZooKeeper.curator();
             ZooKeeperLockClient client = ZooKeeperLockClient.connect(SharedZooKeeper.server().uri() + chroot, FAST);
             ZooKeeperLockClient other = ZooKeeperLockClient.connect(SharedZooKeeper.server().uri() + chroot, FAST)) {
            DistributedLock lock = client.lock("x");
            long start = System.nanoTime();
            assertThat(lock.tryLock(Duration.ofSeconds(1), null)).isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).as("at once, not after retries").isLessThan(1_000);
            assertThat(admin.getChildren().forPath(chroot + client.lockPath("x"))).hasSize(1);
            assertThat(other.lock("x").tryLock()).as("a second client of the chroot is excluded").isFalse();
            lock.unlock();
        }
    }

    @Test
    void aChrootThatCannotBeMadeFailsTheConnectSayingSo() throws Exception {
        String parent = "/readonly-" + UUID.randomUUID();
        try (CuratorFramework admin = SharedZooKeeper.curator()) {
            admin.create().withACL(ZooDefs.Ids.READ_ACL_UNSAFE).forPath(parent);
            long start = System.nanoTime();
            assertThatThrownBy(() -> ZooKeeperLockClient.connect(SharedZooKeeper.server().uri() + parent + "/locks",
                    FAST))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("the chroot '" + parent + "/locks' does not exist, and making it failed")
                    .hasMessageContaining("NoAuth");
            assertThat((System.nanoTime() - start) / 1_000_000).as("within the timeout").isLessThan(2_500);
        }
    }

    @Test
    void digestCredentialsMakeNodesCreatorOnly() throws Exception {
        String ns = "acl-" + UUID.randomUUID();
        ClientOptions options = FAST.toBuilder().namespace(ns).build();
        String host = SharedZooKeeper.server().connectString();
        try (ZooKeeperLockClient alice = ZooKeeperLockClient.connect("zookeeper://alice:pw1@" + host, options);
             ZooKeeperLockClient alice2 = ZooKeeperLockClient.connect("zookeeper://alice:pw1@" + host, options);
             LockClient mallory = LockClient.connect("zookeeper://mallory:pw2@" + host, options);
             CuratorFramework anonymous = SharedZooKeeper.curator();
             CuratorFramework aliceCurator = org.apache.curator.framework.CuratorFrameworkFactory.builder()
                     .connectString(host).authorization("digest", "alice:pw1".getBytes())
                     .retryPolicy(new org.apache.curator.retry.RetryOneTime(100)).build()) {
            aliceCurator.start();
            aliceCurator.blockUntilConnected();
            DistributedLock lock = alice.lock("guarded");
            lock.lock();
            try {
                assertThatThrownBy(() -> anonymous.getChildren().forPath(alice.lockPath("guarded")))
                        .as("not even readable without the credentials").isInstanceOf(Exception.class);
                assertThat(aliceCurator.getACL().forPath(alice.lockPath("guarded")))
                        .allMatch(acl -> acl.getId().getScheme().equals("digest")
                                && acl.getPerms() == ZooDefs.Perms.ALL);
                assertThatThrownBy(() -> mallory.lock("guarded").forceUnlock())
                        .isInstanceOf(LockUnavailableException.class);
                assertThatThrownBy(() -> anonymous.delete().deletingChildrenIfNeeded()
                        .forPath(alice.lockPath("guarded"))).isInstanceOf(Exception.class);
                assertThat(alice2.lock("guarded").tryLock()).as("same identity, other client: still excluded")
                        .isFalse();
            } finally {
                lock.unlock();
            }
            assertThat(alice2.lock("guarded").tryLock()).isTrue();
            alice2.lock("guarded").unlock();
            DistributedLock own = mallory.lock("mallorys-own");
            assertThat(own.tryLock()).as("another identity can still use other names beside ours").isTrue();
            own.unlock();
        }
    }
}
