package io.latchkey.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs one {@link RedisClusterSetup} (three masters) for a whole test class, shared by its tests:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisClusterExtension cluster = new RedisClusterExtension();
 * ... LockClient.connect(cluster.uri()) ...
 * }</pre>
 *
 * A missing {@code redis-server} fails the class with the install command; it is never skipped.
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {

    private RedisClusterSetup setup;

    @Override
    public void beforeAll(ExtensionContext context) {
        setup = RedisClusterSetup.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (setup != null) {
            setup.close();
            setup = null;
        }
    }

    /** The running cluster; fails outside the test class's lifetime. */
    public RedisClusterSetup setup() {
        if (setup == null) {
            throw new IllegalStateException("the Redis Cluster runs only while the test class runs");
        }
        return setup;
    }

    /** @see RedisClusterSetup#uri() */
    public String uri() {
        return setup().uri();
    }
}
