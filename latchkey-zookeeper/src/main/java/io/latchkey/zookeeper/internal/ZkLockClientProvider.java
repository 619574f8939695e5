package io.latchkey.zookeeper.internal;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.spi.LockClientProvider;
import io.latchkey.zookeeper.ZooKeeperLockClient;
import java.util.List;

/** Registers {@code zookeeper://} with {@link LockClient#connect(String, ClientOptions)}. */
public final class ZkLockClientProvider implements LockClientProvider {

    @Override
    public List<String> uriPrefixes() {
        return List.of(ZkUri.PREFIX);
    }

    @Override
    public LockClient create(String uri, ClientOptions options) {
        return ZooKeeperLockClient.connect(uri, options);
    }
}
