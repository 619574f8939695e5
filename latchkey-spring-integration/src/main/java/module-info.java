/** A Spring Integration {@code LockRegistry} over any {@link io.latchkey.LockClient}. */
module io.latchkey.spring.integration {
    requires transitive io.latchkey;
    requires transitive spring.integration.core;

    exports io.latchkey.spring.integration;
}
