package io.latchkey.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one {@link RedisSentinelSetup} (master, replica, three sentinels) for a whole test class, shared by its
 * tests:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisSentinelExtension sentinel = new RedisSentinelExtension();
 * ... LockClient.connect(sentinel.uri()) ...
 * }</pre>
 *
 * A missing {@code redis-server} fails the class with the install command; it is never skipped.
 */
public final class RedisSentinelExtension implements BeforeAllCallback, AfterAllCallback {

    private RedisSentinelSetup setup;

    @Override
    public void beforeAll(ExtensionContext context) {
        setup = new RedisSentinelSetup().start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (setup != null) {
            setup.close();
            setup = null;
        }
    }

    /** The running setup; fails outside the test class's lifetime. */
    public RedisSentinelSetup setup() {
        if (setup == null) {
            throw new IllegalStateException("the Redis Sentinel setup runs only while the test class runs");
        }
        return setup;
    }

    /** @see RedisSentinelSetup#uri() */
    public String uri() {
        return setup().uri();
    }
}
