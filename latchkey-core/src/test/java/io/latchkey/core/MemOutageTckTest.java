package io.latchkey.core;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.core.mem.MemLockClient;
import io.latchkey.tck.OutageTck;
import java.util.UUID;

/** The TCK's {@link OutageTck} on the in-memory backend, whose server can be switched off. */
class MemOutageTckTest extends OutageTck {

    private final String store = "tck-" + UUID.randomUUID();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect("mem://" + store, options);
    }

    @Override
    protected String backendName() {
        return "mem";
    }

    @Override
    protected void takeBackendDown() {
        server().setServerAvailable(false);
    }

    @Override
    protected void bringBackendUp() {
        server().setServerAvailable(true);
    }

    private MemLockClient server() {
        return (MemLockClient) client();
    }
}
