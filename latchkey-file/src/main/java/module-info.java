/**
 * The {@code file://} backend: locks between processes of one host through OS file locks, and semaphores,
 * permit-expirable semaphores and count-down latches as state files changed under the directory's OS lock.
 * {@code io.latchkey.file} is the client package; {@code io.latchkey.file.internal} is not exported.
 */
module io.latchkey.file {
    requires transitive io.latchkey;
    requires io.latchkey.core;
    requires org.slf4j;

    exports io.latchkey.file;

    provides io.latchkey.spi.LockClientProvider with io.latchkey.file.internal.FileLockClientProvider;
}
