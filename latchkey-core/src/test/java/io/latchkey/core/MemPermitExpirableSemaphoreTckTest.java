package io.latchkey.core;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.PermitExpirableSemaphoreTck;
import java.util.UUID;

/** The TCK's {@link PermitExpirableSemaphoreTck} on the in-memory backend; each test gets its own store. */
class MemPermitExpirableSemaphoreTckTest extends PermitExpirableSemaphoreTck {

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
