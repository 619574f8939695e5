package io.latchkey.bench.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback TCP proxy that delays every byte by a fixed one-way latency (order kept, no bandwidth limit), to
 * show what a network round trip costs each client: on loopback a round trip is nearly free, in a data centre it
 * is 0.2–1 ms.
 */
final class LatencyProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int target;
    private final long oneWayNanos;
    private volatile boolean closed;

    LatencyProxy(int targetPort, long oneWayMicros) throws IOException {
        this.target = targetPort;
        this.oneWayNanos = TimeUnit.MICROSECONDS.toNanos(oneWayMicros);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "latency-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                client.setTcpNoDelay(true);
                Socket server = new Socket();
                server.setTcpNoDelay(true);
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
                pipe(client, server);
                pipe(server, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private record Chunk(long due, byte[] bytes) { }

    private void pipe(Socket from, Socket to) {
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            byte[] buf = new byte[65536];
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    queue.put(new Chunk(System.nanoTime() + oneWayNanos, Arrays.copyOf(buf, n)));
                }
            } catch (IOException | InterruptedException e) {
                // closed
            } finally {
                queue.add(new Chunk(0, null));
            }
        }, "latency-proxy-read");
        Thread writer = new Thread(() -> {
            try (OutputStream out = to.getOutputStream()) {
                while (true) {
                    Chunk c = queue.take();
                    if (c.bytes() == null) {
                        return;
                    }
                    long wait;
                    while ((wait = c.due() - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    out.write(c.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }, "latency-proxy-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
    }
}
