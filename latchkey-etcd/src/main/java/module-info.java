/**
 * The etcd backend ({@code etcd://}, {@code etcds://}) on jetcd. {@code io.latchkey.etcd} is the client package;
 * {@code io.latchkey.etcd.internal} is not exported.
 *
 * <p>jetcd's jars carry neither a module descriptor nor an {@code Automatic-Module-Name}, so {@code jetcd.core} and
 * {@code jetcd.common} are the names the module system derives from the jar file names; they hold as long as the
 * jars keep their Maven names.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.latchkey.etcd {
    requires transitive io.latchkey;
    requires io.latchkey.core;
    requires transitive jetcd.core;
    requires jetcd.common;
    requires io.grpc.netty;
    requires io.netty.handler;
    requires org.slf4j;
    requires java.logging; // to quiet grpc-netty's one INFO line at its first connection

    exports io.latchkey.etcd;

    provides io.latchkey.spi.LockClientProvider with io.latchkey.etcd.internal.EtcdLockClientProvider;
}
