package io.latchkey.cli.faults;

import java.util.Set;

/**
 * A server {@code verify --faults --embedded} started: its backend name, the workers' URI, its description, the
 * server faults it has and whether workers may reach it through proxies; counts the server's objects for a soak run
 * (the Redis kinds count their keys themselves). Each kind overrides the faults it has.
 */
abstract class EmbeddedServerControl implements ServerControl {

    private final String backend;
    private final String uri;
    private final String description;
    private final Set<FaultKind> faults;
    private final boolean proxiable;

    EmbeddedServerControl(String backend, String uri, String description, Set<FaultKind> faults, boolean proxiable) {
        this.backend = backend;
        this.uri = uri;
        this.description = "embedded " + description;
        this.faults = faults;
        this.proxiable = proxiable;
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public String uri() {
        return uri;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public Set<FaultKind> serverFaults() {
        return faults;
    }

    @Override
    public boolean proxiable() {
        return proxiable;
    }

    /** Rows of the lease table, etcd keys or ZooKeeper znodes; the Redis kinds count their keys themselves. */
    @Override
    public long serverObjects() {
        if (backend.startsWith("etcd")) {
            return ServerObjects.etcdKeys(uri);
        }
        if (backend.startsWith("zookeeper")) {
            return ServerObjects.zooKeeperNodes(uri);
        }
        if (backend.startsWith("postgresql") || backend.equals("mariadb")) {
            return ServerObjects.sqlRows(uri);
        }
        return -1;
    }
}
