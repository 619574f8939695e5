package io.latchkey.bench.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.latchkey.ClientOptions;
import io.latchkey.FencedStore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.sql.MariaDbServer;
import io.latchkey.testing.sql.PostgresServer;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * The cost of the hold check: per backend, in one run against one server, the latency of a fenced
 * {@code FencedStore.put} and {@code compareAndSet} (one client, one lease held throughout, a 16-byte value) beside a
 * plain write of the same size to the same server without any check (Redis {@code SET}, one autocommitted SQL
 * {@code UPDATE}, ZooKeeper {@code setData}, etcd {@code put}, a file written and moved into place).
 *
 * <p>Usage: {@code FencedStoreLatency [iterations] [backend…]} with backends among {@code redis postgresql mariadb
 * zookeeper etcd file mem} (default: all, 2000 iterations after 300 of warm-up). Starts each server itself from the
 * binaries of {@code scripts/install-test-servers.sh}; prints one line per backend: median and p99 in µs.
 */
public final class FencedStoreLatency {

    private static final byte[] VALUE = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final int WARM_UP = 300;

    interface Write {
        void run(int i) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 && args[0].matches("\\d+") ? Integer.parseInt(args[0]) : 2000;
        List<String> backends = Arrays.asList(args).subList(args.length > 0 && args[0].matches("\\d+") ? 1 : 0,
                args.length);
        if (backends.isEmpty()) {
            backends = List.of("redis", "postgresql", "mariadb", "zookeeper", "etcd", "file", "mem");
        }
        System.out.printf("%-11s %18s %18s %18s   (µs: median / p99; %d writes each)%n", "backend", "plain write",
                "fenced put", "fenced cas", iterations);
        for (String b : backends) {
            switch (b) {
                case "redis" -> redis(iterations);
                case "postgresql" -> {
                    PostgresServer s = new PostgresServer();
                    s.start();
                    try {
                        sql("postgresql", s.jdbcUrl(), "BYTEA", iterations);
                    } finally {
                        s.stop();
                    }
                }
                case "mariadb" -> {
                    MariaDbServer s = new MariaDbServer();
                    s.start();
                    try {
                        sql("mariadb", s.jdbcUrl(), "BLOB", iterations);
                    } finally {
                        s.stop();
                    }
                }
                case "zookeeper" -> zookeeper(iterations);
                case "etcd" -> etcd(iterations);
                case "file" -> file(iterations);
                case "mem" -> fenced("mem", "mem://fenced-store-latency", null, iterations);
                default -> throw new IllegalArgumentException("unknown backend " + b);
            }
        }
        System.exit(0);
    }

    private static void redis(int n) throws Exception {
        try (RedisServer server = RedisServer.standalone().start()) {
            RedisClient plain = RedisClient.create(server.uri());
            try (StatefulRedisConnection<byte[], byte[]> c = plain.connect(ByteArrayCodec.INSTANCE)) {
                byte[] key = "plain:stock".getBytes(StandardCharsets.UTF_8);
                fenced("redis", server.uri(), i -> c.sync().set(key, VALUE), n);
            } finally {
                plain.shutdown();
            }
        }
    }

    private static void sql(String name, String url, String blob, int n) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(1);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS plain_store (k VARCHAR(64) PRIMARY KEY, v " + blob + ")");
                s.execute("DELETE FROM plain_store");
                s.execute("INSERT INTO plain_store (k, v) VALUES ('stock', NULL)");
            }
            fenced(name, url, i -> {
                try (Connection c = ds.getConnection();
                     PreparedStatement ps = c.prepareStatement("UPDATE plain_store SET v = ? WHERE k = 'stock'")) {
                    ps.setBytes(1, VALUE);
                    ps.executeUpdate();
                }
            }, n);
        }
    }

    private static void zookeeper(int n) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100))) {
            curator.start();
            curator.blockUntilConnected();
            curator.create().orSetData().forPath("/plain-stock", VALUE);
            fenced("zookeeper", zk.uri(), i -> curator.setData().forPath("/plain-stock", VALUE), n);
        }
    }

    private static void etcd(int n) throws Exception {
        try (EtcdServer server = EtcdServer.started();
             Client client = Client.builder().endpoints(server.endpoint()).build()) {
            ByteSequence key = ByteSequence.from("plain/stock", StandardCharsets.UTF_8);
            ByteSequence value = ByteSequence.from(VALUE);
            fenced("etcd", server.uri(), i -> client.getKVClient().put(key, value).get(), n);
        }
    }

    private static void file(int n) throws Exception {
        Path dir = Files.createTempDirectory("latchkey-fenced-latency");
        Path plain = dir.resolve("plain-stock");
        Path tmp = dir.resolve("plain-stock.tmp");
        fenced("file", dir.toUri().toString(), i -> {
            Files.write(tmp, VALUE);
            Files.move(tmp, plain, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }, n);
    }

    private static void fenced(String name, String uri, Write plain, int n) throws Exception {
        try (LockClient client = LockClient.connect(uri, ClientOptions.builder()
                .operationTimeout(Duration.ofSeconds(10)).build())) {
            FencedStore store = client.fencedStore("latency");
            try (LockLease lease = client.lock("latency").acquire()) {
                store.put(lease, "stock", VALUE);
                byte[][] values = {VALUE, "fedcba9876543210".getBytes(StandardCharsets.UTF_8)};
                int[] cas = {0};
                Write put = i -> store.put(lease, "stock", VALUE);
                Write swap = i -> {
                    int k = cas[0]++;
                    if (!store.compareAndSet(lease, "cas", k == 0 ? null : values[(k - 1) & 1], values[k & 1])) {
                        throw new IllegalStateException("compare-and-set " + k + " did not swap");
                    }
                };
                // interleaved, so that warm-up, load and server state weigh on all three alike
                long[][] ns = measure(n, plain, put, swap);
                long[] plainNs = ns[0];
                long[] putNs = ns[1];
                long[] casNs = ns[2];
                System.out.printf("%-11s %18s %18s %18s%n", name, plainNs == null ? "-" : stats(plainNs),
                        stats(putNs), stats(casNs));
            }
        }
    }

    /** Runs each write (null: skipped) once per round, WARM_UP + n rounds; the sorted times of the last n. */
    private static long[][] measure(int n, Write... writes) throws Exception {
        long[][] ns = new long[writes.length][];
        for (int w = 0; w < writes.length; w++) {
            ns[w] = writes[w] == null ? null : new long[n];
        }
        for (int i = 0; i < WARM_UP + n; i++) {
            for (int w = 0; w < writes.length; w++) {
                if (writes[w] != null) {
                    long t = System.nanoTime();
                    writes[w].run(i);
                    if (i >= WARM_UP) {
                        ns[w][i - WARM_UP] = System.nanoTime() - t;
                    }
                }
            }
        }
        for (long[] a : ns) {
            if (a != null) {
                Arrays.sort(a);
            }
        }
        return ns;
    }

    private static String stats(long[] sorted) {
        return String.format("%7.0f / %7.0f", sorted[sorted.length / 2] / 1000.0,
                sorted[(int) (sorted.length * 0.99)] / 1000.0);
    }
}
