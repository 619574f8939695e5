/**
 * The lock engine every backend builds on, and the {@code mem://} backend.
 *
 * <p>{@code io.latchkey.core} is the backend-facing engine contract ({@code AbstractLockClient},
 * {@code RemoteLockOps}, {@code RemoteCountOps}, {@code AcquireRequest}, {@code Grant}): it is exported only
 * <em>to</em> Latchkey's own backend modules, not to everyone. It changes with the engine and carries no
 * compatibility promise; a third-party backend implements {@link io.latchkey.spi.LockClientProvider} from the public
 * API instead. {@code io.latchkey.core.internal} (the engine itself) and {@code io.latchkey.core.mem} (reached only
 * through {@code mem://}) are not exported at all. The ZooKeeper backend is an automatic module (see its README),
 * which a qualified export reaches by name like any other module.
 */
@SuppressWarnings("module") // the qualified exports name backend modules that are not on this module's path
module io.latchkey.core {
    requires transitive io.latchkey;
    requires org.slf4j;

    exports io.latchkey.core to
            io.latchkey.redis,
            io.latchkey.jdbc,
            io.latchkey.etcd,
            io.latchkey.file,
            io.latchkey.zookeeper;

    provides io.latchkey.spi.LockClientProvider with io.latchkey.core.mem.MemLockClientProvider;
}
