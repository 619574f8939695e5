package io.latchkey.cli.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 between one worker and one server address: a partition without root. While
 * {@linkplain #blackHole() black-holed} it forwards nothing in either direction but keeps every socket open (as a
 * network that drops packets does: the client sees silence, not a reset), and new connections are accepted but not
 * connected upstream; {@link #heal()} resumes forwarding (bytes held meanwhile are delivered, as TCP retransmission
 * would).
 *
 * <p>Threads: one acceptor {@code latchkey-faults-proxy-<port>} and two pumps per connection
 * ({@code …-<port>-up}/{@code -down}), all daemon threads, stopped by {@link #close()}.
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress upstream;
    private final Thread acceptor;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean blackHoled;
    private volatile boolean closed;

    TcpProxy(String upstreamHost, int upstreamPort) {
        this(null, upstreamHost, upstreamPort);
    }

    /**
     * @param listenHost the address to listen on (the host's address on a network segment, for a worker in a network
     *        namespace), or {@code null} for 127.0.0.1
     */
    TcpProxy(String listenHost, String upstreamHost, int upstreamPort) {
        this.upstream = new InetSocketAddress(upstreamHost, upstreamPort);
        try {
            listener = new ServerSocket(0, 50, listenHost == null ? InetAddress.getLoopbackAddress()
                    : InetAddress.getByName(listenHost));
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a proxy port", e);
        }
        acceptor = new Thread(this::accept, "latchkey-faults-proxy-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    void blackHole() {
        blackHoled = true;
    }

    void heal() {
        blackHoled = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                Thread t = new Thread(() -> connect(client), "latchkey-faults-proxy-" + port() + "-connect");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void connect(Socket client) {
        awaitGate();
        Socket server = new Socket();
        sockets.add(server);
        try {
            server.setTcpNoDelay(true);
            client.setTcpNoDelay(true);
            server.connect(upstream, 5_000);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(server);
            return;
        }
        pump(client, server, "up");
        pump(server, client, "down");
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    awaitGate();
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "latchkey-faults-proxy-" + port() + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private void awaitGate() {
        while (blackHoled && !closed) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // already closed
        }
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        try {
            acceptor.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
