package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.internal.ZNodeNames;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** A lock name is one znode name: nothing reaches outside the namespace. */
class LockNamesTest {

    private static final List<String> HOSTILE = List.of(".", "..", "../..", "/", "a/b", "../../zookeeper",
            "/zookeeper/quota", "%2F", "%", "a%2Fb", "...", " ", "ünïcødé/..", "\uD83D\uDD12", "zookeeper");

    @Test
    void escapingGivesOneSafeSegmentPerName() {
        Set<String> seen = new HashSet<>();
        for (String name : HOSTILE) {
            String segment = ZNodeNames.escape(name);
            assertThat(segment).doesNotContain("/").isNotIn(".", "..").isNotEmpty();
            assertThat(segment.chars()).allMatch(c -> c > 0x20 && c < 0x7f);
            assertThat(ZNodeNames.unescape(segment)).isEqualTo(name);
            assertThat(seen.add(segment)).as("injective for %s", name).isTrue();
        }
    }

    @Test
    void controlCharactersAreRejected() {
        try (LockClient client = LockClient.connect(SharedZooKeeper.server().uri())) {
            for (String bad : List.of("a\u0000b", "line\nbreak", "tab\t", "\u007f", "")) {
                assertThatThrownBy(() -> client.lock(bad)).isInstanceOf(IllegalArgumentException.class);
            }
            assertThatThrownBy(() -> client.lock("x".repeat(513))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void hostileNamesStayInsideTheNamespace() throws Exception {
        String ns = "names-" + UUID.randomUUID();
        try (CuratorFramework curator = SharedZooKeeper.curator();
             ZooKeeperLockClient client = ZooKeeperLockClient.create(curator,
                     ClientOptions.builder().namespace(ns).build())) {
            var before = curator.getChildren().forPath("/");
            String locks = "/latchkey/" + ns + "/locks/";
            Set<String> lockNodes = new HashSet<>();
            for (String name : HOSTILE) {
                DistributedLock lock = client.lock(name);
                lock.lock();
                try {
                    String path = client.lockPath(name);
                    assertThat(path).startsWith(locks);
                    assertThat(path.substring(locks.length())).doesNotContain("/");
                    assertThat(curator.getChildren().forPath(path)).hasSize(1);
                    lockNodes.add(path.substring(locks.length()));
                } finally {
                    lock.unlock();
                }
            }
            assertThat(lockNodes).as("one lock node per name, none shared").hasSize(HOSTILE.size());
            // The server's container reaper may already have removed some of the (now empty) lock nodes.
            assertThat(curator.getChildren().forPath("/latchkey/" + ns + "/locks")).isSubsetOf(lockNodes);
            Set<String> allowed = new HashSet<>(before);
            allowed.add("latchkey");
            assertThat(curator.getChildren().forPath("/")).isSubsetOf(allowed);
        }
    }
}
