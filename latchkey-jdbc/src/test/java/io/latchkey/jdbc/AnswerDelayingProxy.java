package io.latchkey.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of a database that can delay the server's answers: what the client sends reaches the
 * server at once (statements run and commit), while the answers that arrive during {@link #delayAnswers} reach the
 * client that much later (and those behind them, in order): a client whose answer came after its operation timeout.
 * Its threads ({@code test-proxy-…}) end on {@link #close()}.
 */
final class AnswerDelayingProxy implements AutoCloseable {

    private record Chunk(byte[] bytes, long releaseAtNanos) {
    }

    private static final Chunk END = new Chunk(new byte[0], 0);

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger threads = new AtomicInteger();
    private volatile long delayNanos;
    private volatile boolean closed;

    AnswerDelayingProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        start("accept", this::accept);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Delays the answers the server sends from now on by {@code delayMillis} (0: no more delay). */
    void delayAnswers(long delayMillis) {
        delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
                sockets.add(client);
                sockets.add(server);
                start("up", () -> pump(client, server));
                BlockingQueue<Chunk> answers = new LinkedBlockingQueue<>();
                start("down", () -> read(server, client, answers));
                start("delay", () -> write(answers, client, server));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void read(Socket server, Socket client, BlockingQueue<Chunk> answers) {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = server.getInputStream()) {
            for (int n; (n = in.read(buf)) >= 0; ) {
                answers.add(new Chunk(Arrays.copyOf(buf, n), System.nanoTime() + delayNanos));
            }
        } catch (IOException e) {
            // closed
        } finally {
            answers.add(END);
        }
    }

    private void write(BlockingQueue<Chunk> answers, Socket client, Socket server) {
        try (OutputStream out = client.getOutputStream()) {
            for (Chunk c; (c = answers.take()) != END; ) {
                long wait = c.releaseAtNanos() - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                out.write(c.bytes());
                out.flush();
            }
        } catch (IOException e) {
            // closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    private void start(String what, Runnable r) {
        Thread t = new Thread(r, "test-proxy-" + what + "-" + threads.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        closed = true;
        delayNanos = 0;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
