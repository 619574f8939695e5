package io.latchkey.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A minimal blocking RESP2 client for fixtures: readiness probes and administrative commands (FLUSHALL, SCRIPT
 * FLUSH, CLIENT PAUSE) without depending on a Redis driver. One command at a time; not thread-safe.
 */
final class RespConnection implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespConnection(String host, int port, SSLContext tls, String user, String password, int timeoutMillis)
            throws IOException {
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, port), timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            this.socket = tls == null ? plain
                    : tls.getSocketFactory().createSocket(plain, host, port, true);
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        } catch (IOException e) {
            plain.close();
            throw e;
        }
        if (password != null) {
            if (user != null) {
                execute("AUTH", user, password);
            } else {
                execute("AUTH", password);
            }
        }
    }

    /**
     * Sends one command and reads its reply: a {@code String} (simple or bulk), {@code Long}, {@code List} or
     * {@code null}.
     *
     * @throws IllegalStateException for an error reply
     */
    Object execute(String... args) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        buf.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            buf.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            buf.writeBytes(bytes);
            buf.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(buf.toByteArray());
        out.flush();
        return readReply(args[0]);
    }

    private Object readReply(String command) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed by the server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException(command + " failed: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len + 2);
                return new String(data, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(readReply(command));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                return sb.toString();
            }
            sb.append((char) c);
        }
        throw new IOException("connection closed by the server");
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
