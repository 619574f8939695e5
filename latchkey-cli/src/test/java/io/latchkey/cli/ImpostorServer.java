package io.latchkey.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Something that is not the server a URI names, listening on a loopback port: either it accepts and never says a
 * word ({@link #silent()}), or it answers every request like a web server refusing it ({@link #http()}). One named
 * thread accepts, one per connection answers; {@link #close()} stops them all.
 */
final class ImpostorServer implements AutoCloseable {

    private final ServerSocket socket;
    private final boolean answers;
    private final String reply;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private ImpostorServer(boolean answers) throws IOException {
        this(answers, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n"
                + "Connection: close\r\n\r\nBad Request");
    }

    private ImpostorServer(boolean answers, String reply) throws IOException {
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.answers = answers;
        this.reply = reply;
        this.acceptor = new Thread(this::acceptLoop, "impostor-accept-" + socket.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static ImpostorServer silent() throws IOException {
        return new ImpostorServer(false);
    }

    static ImpostorServer http() throws IOException {
        return new ImpostorServer(true);
    }

    /**
     * A web server that answers a request line it cannot parse with a bare HTML error page and no status line, as
     * Python's {@code http.server} answers an HTTP/0.9-style request: the reply starts with {@code <}.
     */
    static ImpostorServer html() throws IOException {
        return new ImpostorServer(true, "<!DOCTYPE HTML>\n<html><head><title>Error response</title></head>"
                + "<body><h1>Error response</h1><p>Error code: 400</p></body></html>\n");
    }

    int port() {
        return socket.getLocalPort();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket c = socket.accept();
                connections.add(c);
                if (answers) {
                    Thread t = new Thread(() -> answer(c, reply), "impostor-answer-" + socket.getLocalPort());
                    t.setDaemon(true);
                    t.start();
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void answer(Socket c, String reply) {
        try (InputStream in = c.getInputStream(); OutputStream out = c.getOutputStream()) {
            byte[] buf = new byte[4096];
            while (in.read(buf) > 0) {
                out.write(reply.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (IOException e) {
            // the client hung up
        }
    }

    /** A port nothing listens on (bound, then released). */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        for (Socket c : connections) {
            c.close();
        }
    }
}
