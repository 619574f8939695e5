/**
 * Latchkey's public API: {@link io.latchkey.LockClient} and the primitives it hands out, plus the one service
 * interface a backend implements ({@link io.latchkey.spi.LockClientProvider}).
 *
 * <p>{@link io.latchkey.LockClient#connect(String)} finds backends with {@link java.util.ServiceLoader}: on the module
 * path every backend module declares {@code provides io.latchkey.spi.LockClientProvider}, on the class path it lists
 * its provider in {@code META-INF/services}. Both are kept, so the jars work either way.
 */
module io.latchkey {
    exports io.latchkey;
    exports io.latchkey.spi;

    uses io.latchkey.spi.LockClientProvider;
}
