package io.latchkey.etcd.internal;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.etcd.EtcdLockClient;
import io.latchkey.spi.LockClientProvider;
import java.util.List;

/** Registers {@code etcd://} and {@code etcds://} with {@link LockClient#connect(String, ClientOptions)}. */
public final class EtcdLockClientProvider implements LockClientProvider {

    @Override
    public List<String> uriPrefixes() {
        return List.of(EtcdUri.PREFIX, EtcdUri.TLS_PREFIX);
    }

    @Override
    public LockClient create(String uri, ClientOptions options) {
        return EtcdLockClient.connect(uri, options);
    }
}
