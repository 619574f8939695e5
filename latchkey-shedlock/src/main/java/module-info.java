/** A ShedLock {@code LockProvider} over any {@link io.latchkey.LockClient}. */
module io.latchkey.shedlock {
    requires transitive io.latchkey;
    requires transitive net.javacrumbs.shedlock.core;
    requires org.slf4j;

    exports io.latchkey.shedlock;
}
