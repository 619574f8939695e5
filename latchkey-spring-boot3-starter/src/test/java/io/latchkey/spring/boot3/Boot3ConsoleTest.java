package io.latchkey.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.console.LockConsole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The lock console on Spring Boot 3.5 (Tomcat 10.1): the same page under {@code /actuator/latchkey/console/} as on
 * Boot 4, reading the application's client; force-unlock refused without the page's token and done with it.
 */
@SpringBootTest(classes = Boot3ConsoleTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"latchkey.uri=mem://boot3-console-test", "latchkey.console.enabled=true",
                "latchkey.console.interval=100ms", "management.endpoints.web.exposure.include=latchkey"})
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Boot3ConsoleTest {

    @Autowired
    LockClient client;

    @Autowired
    Environment environment;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder to(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + environment.getProperty("local.server.port")
                + "/actuator/latchkey/console" + path));
    }

    @Test
    void showsAHeldLockAndForceUnlocksItOnlyWithThePagesToken() throws Exception {
        HttpResponse<String> page = send(to("/"));
        assertThat(page.statusCode()).isEqualTo(200);
        Matcher m = Pattern.compile("name=\"latchkey-csrf\" content=\"([0-9a-f]{64})\"").matcher(page.body());
        assertThat(m.find()).as(page.body()).isTrue();

        LockLease lease = client.lock("boot3-job").acquire();
        String state = "";
        for (int i = 0; i < 100 && !state.contains("\"name\":\"boot3-job\""); i++) {
            Thread.sleep(50);
            state = send(to("/api/state")).body();
        }
        assertThat(state).contains("\"token\":" + lease.fencingToken());
        String owner = state.replaceAll("(?s).*\"name\":\"boot3-job\",\"kind\":\"lock\",\"owner\":\"([^\"]+)\".*", "$1");
        String form = "name=boot3-job&kind=lock&owner=" + owner + "&token=" + lease.fencingToken();
        HttpRequest.Builder post = to("/api/unlock").header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));

        assertThat(send(post).statusCode()).isEqualTo(403);
        assertThat(client.lock("boot3-job").isLocked()).isTrue();
        HttpResponse<String> done = send(post.header(LockConsole.CSRF_HEADER, m.group(1)));
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(client.lock("boot3-job").isLocked()).isFalse();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
