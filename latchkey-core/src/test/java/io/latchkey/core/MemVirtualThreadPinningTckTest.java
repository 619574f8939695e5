package io.latchkey.core;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.VirtualThreadPinningTck;
import java.util.UUID;

/** The TCK's {@link VirtualThreadPinningTck} on the in-memory backend; each test gets its own store. */
class MemVirtualThreadPinningTckTest extends VirtualThreadPinningTck {

    private final String store = "tck-" + UUID.randomUUID();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect("mem://" + store, options);
    }

    @Override
    protected String backendName() {
        return "mem";
    }
}
