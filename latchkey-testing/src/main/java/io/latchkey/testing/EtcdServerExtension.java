package io.latchkey.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one real {@link EtcdServer} for a whole test class, shared by its tests:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EtcdServerExtension etcd = new EtcdServerExtension();
 * ... LockClient.connect(etcd.uri()) ...
 * }</pre>
 *
 * Tests may {@code kill()} and {@code start()} {@link #server()} to simulate an outage. A missing {@code etcd}
 * binary fails the class with the install command; it is never skipped.
 */
public final class EtcdServerExtension implements BeforeAllCallback, AfterAllCallback {

    private EtcdServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = EtcdServer.started();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** The running server; fails outside the test class's lifetime. */
    public EtcdServer server() {
        if (server == null) {
            throw new IllegalStateException("the etcd server runs only while the test class runs");
        }
        return server;
    }

    /** @see EtcdServer#uri() */
    public String uri() {
        return server().uri();
    }

    /** @see EtcdServer#endpoint() */
    public String endpoint() {
        return server().endpoint();
    }
}
