package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisServerExtensionTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @RegisterExtension
    static RedisServerExtension acl = RedisServerExtension.withAcl();

    @RegisterExtension
    static RedisServerExtension tls = RedisServerExtension.withTls();

    @Test
    void plainServerAnswersAndFlushes() {
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
        assertThat(redis.execute("SET", "k", "v")).isEqualTo("OK");
        redis.flushAll();
        assertThat(redis.execute("EXISTS", "k")).isEqualTo(0L);
        assertThat(redis.execute("CONFIG", "GET", "save").toString()).contains("save");
    }

    @Test
    void stopAndStartKeepThePortAndLoseTheData() throws IOException {
        int port = redis.port();
        redis.execute("SET", "k", "v");
        redis.stop();
        assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 200))
                .isInstanceOf(IOException.class);
        redis.start();
        assertThat(redis.port()).isEqualTo(port);
        assertThat(redis.execute("EXISTS", "k")).isEqualTo(0L);
    }

    @Test
    void aclServerNeedsTheUser() {
        assertThat(acl.uri()).isEqualTo("redis://latchkey:secret@127.0.0.1:" + acl.port());
        assertThat(acl.execute("ACL", "WHOAMI")).isEqualTo("latchkey");
    }

    @Test
    void tlsServerSpeaksTlsOnly() {
        assertThat(tls.uri()).startsWith("rediss://127.0.0.1:");
        assertThat(tls.trustStore()).exists();
        assertThat(tls.execute("PING")).isEqualTo("PONG");
        assertThat(tls.execute("CONFIG", "GET", "port")).asString().contains("0");
    }

    @Test
    void missingBinaryNamesTheInstallCommand() {
        assertThatThrownBy(() -> ServerProcess.requireBinary("no-such-server-binary", "sudo apt-get install x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sudo apt-get install x")
                .hasMessageContaining("scripts/install-test-servers.sh");
    }
}
