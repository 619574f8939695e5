package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The console with access tokens, over plain HTTP on a lock directory: without a token nothing is served; a token in
 * the query becomes a cookie; a bearer token works; the audit names the token's label; a loopback console refuses a
 * foreign {@code Host}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleAccessTest {

    private static final String TOKEN = "s3cret-token-0123456789";

    @Test
    void everyRequestNeedsTheTokenAndTheAuditNamesItsLabel() throws Exception {
        Path dir = Files.createTempDirectory("latchkey-console-access");
        Path audit = dir.resolve("audit.log");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        ConsoleCommand command = (ConsoleCommand) cli.getSubcommands().get("console").getCommand();
        String uri = dir.toUri().toString();
        Thread t = new Thread(() -> Main.run(cli, "console", uri, "--port", "0", "--token", "ops=" + TOKEN,
                "--audit-file", audit.toString()), "console-under-test");
        t.start();
        try (LockClient holder = LockClient.connect(uri)) {
            while (command.listening == null) {
                assertThat(t.isAlive()).as("%s %s", out, err).isTrue();
                Thread.sleep(20);
            }
            int port = command.listening.getPort();
            String base = "http://127.0.0.1:" + port;
            assertThat(out.toString()).contains("?token=<your token>").doesNotContain(TOKEN);
            HttpClient http = HttpClient.newHttpClient();

            HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.body()).contains("access token is required").doesNotContain("latchkey-csrf");
            HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(base + "/api/state"))
                    .header("Authorization", "Bearer " + TOKEN + "x").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(wrong.statusCode()).isEqualTo(401);

            HttpResponse<String> query = http.send(HttpRequest.newBuilder(URI.create(base + "/?token=" + TOKEN))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(query.statusCode()).as("redirected without the token in the address").isEqualTo(303);
            assertThat(query.headers().firstValue("Location")).hasValue("/");
            String cookie = query.headers().firstValue("Set-Cookie").orElseThrow();
            assertThat(cookie).startsWith(ConsoleAccess.COOKIE + "=" + TOKEN).contains("HttpOnly")
                    .contains("SameSite=Strict");
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/"))
                    .header("Cookie", cookie.substring(0, cookie.indexOf(';'))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            String csrf = page.body().replaceAll("(?s).*name=\"latchkey-csrf\" content=\"([0-9a-f]+)\".*", "$1");
            assertThat(csrf).hasSize(64);

            LockLease lease = holder.lock("access-test").acquire();
            String owner = null;
            for (int i = 0; i < 100 && owner == null; i++) {
                String state = http.send(HttpRequest.newBuilder(URI.create(base + "/api/state"))
                        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString())
                        .body();
                if (state.contains("\"name\":\"access-test\"")) {
                    owner = state.replaceAll("(?s).*\"name\":\"access-test\",\"kind\":\"lock\",\"owner\":\"([^\"]+)\".*",
                            "$1");
                } else {
                    Thread.sleep(50);
                }
            }
            assertThat(owner).isNotNull();
            HttpResponse<String> unlock = http.send(HttpRequest.newBuilder(URI.create(base + "/api/unlock"))
                    .header("Authorization", "Bearer " + TOKEN).header("X-Latchkey-Csrf", csrf)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("name=access-test&kind=lock&owner=" + owner + "&token="
                            + lease.fencingToken())).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unlock.statusCode()).as(unlock.body()).isEqualTo(200);
            assertThat(Files.readString(audit)).contains("\tops\t127.0.0.1\tforce-unlock\taccess-test\t")
                    .contains("released");
            assertThat(holder.lock("access-test").isLocked()).isFalse();

            assertThat(rawGet(port, "rebound.example:" + port)).as("a foreign Host on a loopback console")
                    .startsWith("HTTP/1.1 421");
        } finally {
            command.stop.countDown();
            t.join(10_000);
        }
        assertThat(t.isAlive()).isFalse();
    }

    private static String rawGet(int port, String host) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream o = s.getOutputStream();
            o.write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + TOKEN
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }
}
