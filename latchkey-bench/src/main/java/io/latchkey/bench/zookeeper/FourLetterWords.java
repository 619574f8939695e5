package io.latchkey.bench.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** ZooKeeper's four-letter commands ({@code ruok}, {@code srvr}, …) on a server's client port. */
public final class FourLetterWords {

    private FourLetterWords() {
    }

    /** The answer to {@code word}, or "" if the server does not answer within 500 ms (connect) and 2 s (reply). */
    public static String ask(String host, int port, String word) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 500);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
