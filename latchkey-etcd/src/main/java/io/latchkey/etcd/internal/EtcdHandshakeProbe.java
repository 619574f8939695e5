package io.latchkey.etcd.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * Why a first connection to etcd timed out, when TLS is the reason (jetcd retries a failed handshake until its
 * deadline and reports only the timeout): one connection of its own to the first member, within the time left, says
 * what went wrong: for {@code etcds://} the handshake error (an untrusted server certificate, a client certificate
 * missing or refused); for {@code etcd://} whether the member speaks TLS, or another protocol than HTTP/2.
 */
public final class EtcdHandshakeProbe {

    private EtcdHandshakeProbe() {
    }

    /** What went wrong with TLS at {@code uri}'s first member, or {@code null}; never longer than {@code millis}. */
    public static String diagnose(EtcdUri uri, long millis) {
        if (millis <= 0) {
            return null;
        }
        URI first = URI.create(uri.endpoints().get(0));
        String host = first.getHost();
        int port = first.getPort();
        if (!uri.tls()) {
            String other = otherServer(host, port, Math.max(1, millis / 2));
            if (other != null) {
                return other;
            }
        }
        SSLContext context;
        try {
            context = uri.jdkContext(!uri.tls());
        } catch (SSLException | RuntimeException e) {
            return null;
        }
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), (int) millis);
            plain.setSoTimeout((int) Math.max(1, millis));
            try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, false)) {
                SSLParameters parameters = tls.getSSLParameters();
                parameters.setApplicationProtocols(new String[] {"h2"});
                if (uri.tls()) {
                    parameters.setEndpointIdentificationAlgorithm("HTTPS");
                }
                tls.setSSLParameters(parameters);
                tls.startHandshake();
                if (!uri.tls()) {
                    return "it speaks TLS: use etcds://" + host + ":" + port
                            + " (with ?ca=/path/ca.pem if its certificate is not in the JVM's trust store)";
                }
                // TLS 1.3: a server that wants a client certificate says so after the client's handshake ends
                tls.setSoTimeout((int) Math.max(1, Math.min(millis, 300)));
                tls.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                tls.getOutputStream().flush();
                tls.getInputStream().read();
                return null;
            }
        } catch (SocketTimeoutException e) {
            return null;
        } catch (SSLException e) {
            if (!uri.tls()) {
                return null; // not a TLS server: the plain connection failed for some other reason
            }
            return "the TLS handshake with " + host + ":" + port + " failed: " + e.getMessage()
                    + (uri.ca() == null ? " (no ?ca= given: the JVM's trust store was used)" : "")
                    + (uri.hasClientCertificate() ? "" : " (no client certificate given: ?cert=…&key=…)");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Whether the plain port is a server of another kind: sent HTTP/2's preface and an empty SETTINGS frame, a gRPC
     * server answers SETTINGS; a reply that is neither that, nor TLS nor HTTP/1 (a TLS port's answer to plain text), is
     * shown by its first line. {@code null} when the port answers as HTTP/2, as TLS, or not at all.
     */
    static String otherServer(String host, int port, long millis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) millis);
            socket.setSoTimeout((int) millis);
            // the preface, then an empty SETTINGS frame (length 0, type 4, no flags, stream 0)
            byte[] hello = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0"
                    .getBytes(StandardCharsets.ISO_8859_1);
            socket.getOutputStream().write(hello);
            socket.getOutputStream().flush();
            byte[] head = new byte[80];
            int n = 0;
            for (int r; n < 9 && (r = socket.getInputStream().read(head, n, head.length - n)) > 0; ) {
                n += r;
            }
            if (n == 0) {
                return null; // closed without a word: a TLS port does that too (the TLS probe tells)
            }
            if (n >= 4 && head[3] == 4 || head[0] == 0x15 || head[0] == 0x16) {
                return null; // an HTTP/2 SETTINGS frame, or a TLS record
            }
            String text = new String(head, 0, n, StandardCharsets.ISO_8859_1);
            if (text.startsWith("HTTP/1.")) {
                return null; // e.g. a TLS port's "Client sent an HTTP request to an HTTPS server"
            }
            String line = text.split("[\r\n]", 2)[0].replaceAll("[^\\x20-\\x7e]", "?");
            return String.format("not an etcd server at %s:%d: it answered the opening of an HTTP/2 connection "
                    + "(etcd's protocol) with \"%s\"%s", host, port, line,
                    line.startsWith("-ERR") || line.startsWith("-NOAUTH") ? " (a Redis server?)" : "");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
