/** Project Reactor types ({@code Mono}, {@code Flux}) over any {@link io.latchkey.LockClient}. */
module io.latchkey.reactor {
    requires transitive io.latchkey;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;

    exports io.latchkey.reactor;
}
