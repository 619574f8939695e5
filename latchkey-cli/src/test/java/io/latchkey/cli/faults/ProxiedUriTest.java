package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ProxiedUriTest {

    @Test
    void rewritesEveryAddressAndKeepsCredentialsAndPath() {
        AtomicInteger port = new AtomicInteger(9000);
        assertThat(ProxiedUri.rewrite("redis://:secret@10.0.0.5:6380/2", a -> port.incrementAndGet()))
                .isEqualTo("redis://:secret@127.0.0.1:9001/2");
        assertThat(ProxiedUri.rewrite("zookeeper://a:2181,b:2182/chroot", a -> port.incrementAndGet()))
                .isEqualTo("zookeeper://127.0.0.1:9002,127.0.0.1:9003/chroot");
        assertThat(ProxiedUri.rewrite("jdbc:postgresql://db/app?user=x", a -> a.port()))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/app?user=x");
    }

    @Test
    void uriWithoutAddressesCannotBeProxied() {
        assertThat(ProxiedUri.hasAddresses("jdbc:h2:mem:x")).isFalse();
        assertThat(ServerControl.external("redis-sentinel://h:26379/m").proxiable()).isFalse();
        assertThat(ServerControl.external("etcd://127.0.0.1:2379").proxiable()).isTrue();
    }
}
