package io.latchkey.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Why a TLS connect timed out, when the port speaks plain Redis: after such a timeout this probe opens one plain
 * connection of its own, sends {@code PING} and reads the first reply line. A RESP reply ({@code +PONG},
 * {@code -NOAUTH …}) means the server does not speak TLS there. Nothing is sent but {@code PING}, no credentials.
 * The other way round, a plain connect that a TLS port closed is told by a bare TLS handshake.
 */
final class RedisTlsProbe {

    private RedisTlsProbe() {
    }

    /**
     * Whether {@code host:port} completes a TLS handshake within {@code budget} (any certificate accepted: only
     * whether the port speaks TLS matters; nothing is sent after the handshake).
     */
    static boolean speaksTls(String host, int port, Duration budget) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, budget.toMillis()));
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), millis);
            plain.setSoTimeout(millis);
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, new javax.net.ssl.TrustManager[] {new TrustingEverything()}, null);
            try (javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) context.getSocketFactory()
                    .createSocket(plain, host, port, false)) {
                tls.startHandshake();
                return true;
            }
        } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /** Trusts any certificate: the probe only asks whether a handshake completes, and sends nothing after it. */
    private static final class TrustingEverything implements javax.net.ssl.X509TrustManager {
        @Override
        public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {
            // not a server
        }

        @Override
        public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {
            // only whether the handshake completes matters
        }

        @Override
        public java.security.cert.X509Certificate[] getAcceptedIssuers() {
            return new java.security.cert.X509Certificate[0];
        }
    }

    /** The part of a connect's timeout kept for the probe: a quarter, at most 500 ms. */
    static Duration budget(Duration timeout) {
        return Duration.ofMillis(Math.min(500, timeout.toMillis() / 4));
    }

    /**
     * What the plain port answered, in words, or {@code null} if it answered nothing that RESP starts with within
     * {@code budget}.
     */
    static String plainTextAnswer(String host, int port, Duration budget) {
        return plainText(host, port, budget, false);
    }

    /** The first line a plain port answered to {@code PING} if it is RESP, or {@code null}. */
    static String respAnswer(String host, int port, Duration budget) {
        return plainText(host, port, budget, true);
    }

    private static String plainText(String host, int port, Duration budget, boolean plainText) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, budget.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\r' && b != '\n' && line.length() < 80; b = in.read()) {
                line.append(b >= 0x20 && b < 0x7f ? (char) b : '?');
            }
            if (line.length() == 0 || "+-:$*".indexOf(line.charAt(0)) < 0) {
                return null;
            }
            return plainText ? line.toString() : String.format("the server at %s:%d does not speak TLS: it answered PING in plain text (%s); use "
                    + "redis:// for this port, or the server's TLS port", host, port, line);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
