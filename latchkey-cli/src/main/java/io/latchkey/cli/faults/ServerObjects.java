package io.latchkey.cli.faults;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * Counts what a lock server keeps (for a soak run's samples: it must stay flat): rows of the lease table, etcd keys,
 * ZooKeeper znodes under {@code /latchkey}. Redis servers count their keys themselves ({@code DBSIZE}).
 */
final class ServerObjects {

    private static final long TIMEOUT_SECONDS = 30;

    private ServerObjects() {
    }

    /** Rows of the SQL backend's lease table ({@code latchkey_locks}). */
    static long sqlRows(String jdbcUrl) {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + io.latchkey.jdbc.JdbcOptions.DEFAULT_TABLE)) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException e) {
            throw new IllegalStateException("could not count the lease table's rows: " + e.getMessage(), e);
        }
    }

    /** Every key of the etcd cluster at {@code etcd://host:port[,host:port…]}. */
    static long etcdKeys(String uri) {
        List<String> endpoints = java.util.Arrays.stream(uri.substring("etcd://".length()).split("[/?]")[0]
                .split(",")).map(h -> "http://" + h).toList();
        try (Client client = Client.builder().endpoints(endpoints.toArray(String[]::new)).build()) {
            ByteSequence all = ByteSequence.from(new byte[] {0});
            return client.getKVClient().get(all, GetOption.builder().withRange(all).withCountOnly(true).build())
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getCount();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not count etcd's keys: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while counting etcd's keys", e);
        }
    }

    /** The znodes under {@code /latchkey} of the ZooKeeper server(s) at {@code zookeeper://host:port[,…]}. */
    static long zooKeeperNodes(String uri) {
        String connect = uri.substring("zookeeper://".length()).split("[/?]")[0];
        ZooKeeper zk = null;
        try {
            java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
            zk = new ZooKeeper(connect, 10_000, e -> {
                if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            if (!connected.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not connect to ZooKeeper at " + connect);
            }
            long n = 0;
            Deque<String> todo = new ArrayDeque<>(List.of("/latchkey"));
            while (!todo.isEmpty()) {
                String path = todo.pop();
                List<String> children;
                try {
                    children = zk.getChildren(path, false);
                } catch (KeeperException.NoNodeException gone) {
                    continue;
                }
                for (String c : children) {
                    n++;
                    todo.push(path + "/" + c);
                }
            }
            return n;
        } catch (java.io.IOException | KeeperException e) {
            throw new IllegalStateException("could not count ZooKeeper's znodes: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while counting ZooKeeper's znodes", e);
        } finally {
            if (zk != null) {
                try {
                    zk.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
