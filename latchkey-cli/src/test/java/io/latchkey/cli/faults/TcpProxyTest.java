package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

/** The partition proxy on an echo server: forwards, goes silent while black-holed without closing, then delivers. */
class TcpProxyTest {

    @Test
    void blackHoleKeepsTheSocketOpenButSilentUntilHealed() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket s = echo.accept()) {
                    s.getInputStream().transferTo(s.getOutputStream());
                } catch (Exception e) {
                    // test over
                }
            }, "echo");
            server.setDaemon(true);
            server.start();
            try (TcpProxy proxy = new TcpProxy("127.0.0.1", echo.getLocalPort());
                 Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                client.setSoTimeout(3_000);
                OutputStream out = client.getOutputStream();
                InputStream in = client.getInputStream();
                out.write(1);
                assertThat(in.read()).isEqualTo(1);

                proxy.blackHole();
                out.write(2);
                client.setSoTimeout(300);
                assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);

                proxy.heal();
                client.setSoTimeout(3_000);
                assertThat(in.read()).isEqualTo(2);
            }
        }
    }
}
