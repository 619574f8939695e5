package io.latchkey.bench.sizing;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;

/**
 * One server set-up the sizing suite measures: started by the suite as child processes of the benchmark's JVM (so
 * {@link ServerProcesses} can read their CPU time and memory), closed (stopped, data deleted) afterwards.
 */
interface Topology extends AutoCloseable {

    /** What {@code --rows} selects it by, such as {@code redis-cluster}. */
    String key();

    /** The heading of its table, with the server's version and how many nodes. */
    String label();

    /** Server nodes (processes) it runs. */
    int nodes();

    /** How the server was set up: where its data lives, what it syncs to disk. */
    String setup();

    /** A new Latchkey client of this topology; the caller closes it. */
    LockClient connect(ClientOptions options);

    @Override
    void close();
}
