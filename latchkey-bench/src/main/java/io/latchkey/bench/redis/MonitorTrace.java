package io.latchkey.bench.redis;

import io.latchkey.bench.SideBySide;
import io.lettuce.core.RedisURI;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the commands clients send, by name, through {@code MONITOR} on a raw socket of its own. The server's
 * counters cannot tell a command a client sent from one a Lua script called; MONITOR can (script calls are tagged
 * {@code [db lua]}), so this yields the round trips a lock cycle costs. MONITOR slows the server down, so the
 * harness uses it only in a short profiling pass after the measured runs.
 */
final class MonitorTrace implements SideBySide.CommandTrace {

    private final RedisURI uri;

    MonitorTrace(String redisUri) {
        this.uri = RedisURI.create(redisUri);
    }

    @Override
    public SideBySide.CommandTrace.Recording start() throws IOException {
        if (uri.isSsl()) {
            throw new IOException("MONITOR tracing is not implemented over TLS");
        }
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
        OutputStream out = socket.getOutputStream();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8),
                1 << 16);
        io.lettuce.core.RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
        char[] password = credentials == null || !credentials.hasPassword() ? null : credentials.getPassword();
        if (password != null && password.length > 0) {
            String user = credentials.getUsername();
            send(out, user == null ? new String[] {"AUTH", new String(password)}
                    : new String[] {"AUTH", user, new String(password)});
            String reply = in.readLine();
            if (reply == null || !reply.startsWith("+OK")) {
                socket.close();
                throw new IOException("AUTH for MONITOR failed");
            }
        }
        send(out, "MONITOR");
        String ok = in.readLine();
        if (ok == null || !ok.startsWith("+OK")) {
            socket.close();
            throw new IOException("MONITOR was refused: " + ok);
        }
        Map<String, Long> counts = new ConcurrentHashMap<>();
        Thread reader = new Thread(() -> read(in, counts), "bench-redis-monitor");
        reader.setDaemon(true);
        reader.start();
        return () -> {
            // Lets the reader drain what the server already sent before the socket closes.
            Thread.sleep(100);
            socket.close();
            reader.join(2_000);
            return new HashMap<>(counts);
        };
    }

    /** Lines look like {@code +1700000000.123456 [0 127.0.0.1:5555] "evalsha" "ab12…" "1" "key"}. */
    private static void read(BufferedReader in, Map<String, Long> counts) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                int open = line.indexOf('[');
                int close = line.indexOf(']', open + 1);
                if (open < 0 || close < 0 || line.regionMatches(close - 3, "lua", 0, 3)) {
                    continue;
                }
                int q1 = line.indexOf('"', close);
                int q2 = q1 < 0 ? -1 : line.indexOf('"', q1 + 1);
                if (q2 > q1) {
                    counts.merge(line.substring(q1 + 1, q2).toLowerCase(), 1L, Long::sum);
                }
            }
        } catch (IOException closed) {
            // the recording was stopped
        }
    }

    private static void send(OutputStream out, String... args) throws IOException {
        StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
