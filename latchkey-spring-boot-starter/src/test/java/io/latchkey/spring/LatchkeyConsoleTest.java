package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.console.LockConsole;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The lock console in a Spring Boot 4 servlet application on Tomcat behind Spring Security's default protection,
 * under {@code /actuator/latchkey/console/}, reading the application's own client (mem backend): refused without
 * the application's login; the page, the state as JSON and as server-sent events, a held lock with its token; and
 * force-unlock refused without the page's CSRF token (or without Spring Security's) and done with both, audited under
 * the user's name. A real {@code SpringApplication} on a free port, as {@code @SpringBootTest(webEnvironment =
 * RANDOM_PORT)} would start it (Spring Framework 7's test support needs JUnit 6, this build runs JUnit 5).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LatchkeyConsoleTest {

    private static final Pattern CSRF = Pattern.compile("name=\"latchkey-csrf\" content=\"([0-9a-f]{64})\"");
    private static final Pattern SECURITY_CSRF =
            Pattern.compile("name=\"latchkey-header\" content=\"([^\"]+)\" data-value=\"([^\"]+)\"");
    private static final String LOGIN = "Basic " + Base64.getEncoder().encodeToString(
            "ops:console-test-password".getBytes(StandardCharsets.UTF_8));

    private static ConfigurableApplicationContext app;
    private static LockClient client;

    /** A browser's session: Spring Security keeps its CSRF token in the HTTP session. */
    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

    @BeforeAll
    static void start() {
        app = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
                .properties("server.port=0", "latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri(),
                        "latchkey.console.enabled=true", "latchkey.console.interval=100ms",
                        "management.endpoints.web.exposure.include=health,latchkey",
                        "spring.security.user.name=ops", "spring.security.user.password=console-test-password")
                .run();
        client = app.getBean(LockClient.class);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        assertThat(Thread.getAllStackTraces().keySet()).as("the console's poller ends with the application")
                .noneMatch(t -> t.getName().equals("latchkey-console-poll") && t.isAlive());
    }

    private String base() {
        return "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port")
                + "/actuator/latchkey/console";
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", LOGIN).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A force-unlock POST with the console's CSRF token and Spring Security's header, each when not null. */
    private HttpResponse<String> unlock(String form, String csrf, Matcher security) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + "/api/unlock"))
                .header("Authorization", LOGIN).header("Content-Type", "application/x-www-form-urlencoded");
        if (csrf != null) {
            b.header(LockConsole.CSRF_HEADER, csrf);
        }
        if (security != null) {
            b.header(security.group(1), security.group(2));
        }
        return http.send(b.POST(HttpRequest.BodyPublishers.ofString(form)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The state as JSON once it lists {@code name}. */
    private String stateWith(String name) throws Exception {
        for (int i = 0; i < 100; i++) {
            String state = get("/api/state").body();
            if (state.contains("\"name\":\"" + name + "\"")) {
                return state;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(name + " not shown within 5 s: " + get("/api/state").body());
    }

    @Test
    void showsAHeldLockWithItsTokenAndForceUnlocksItOnlyWithThePagesToken() throws Exception {
        HttpResponse<String> stranger = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(stranger.statusCode()).as("behind the application's security").isEqualTo(401);
        assertThat(stranger.body()).doesNotContain("latchkey");

        HttpResponse<String> bare = get("");
        assertThat(bare.statusCode()).as("the page's links are relative to its directory").isEqualTo(302);
        assertThat(bare.headers().firstValue("Location")).hasValue("/actuator/latchkey/console/");

        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(LockConsole.CONTENT_SECURITY_POLICY);
        assertThat(page.body()).contains("<title>latchkey console</title>").contains("src=\"console.js\"");
        assertThat(get("/console.js").statusCode()).isEqualTo(200);
        Matcher m = CSRF.matcher(page.body());
        assertThat(m.find()).as(page.body()).isTrue();
        String csrf = m.group(1);
        Matcher security = SECURITY_CSRF.matcher(page.body());
        assertThat(security.find()).as("Spring Security's CSRF token for the page's changes: %s", page.body()).isTrue();

        String name = "invoice-run";
        LockLease lease = client.lock(name).acquire();
        String token = Long.toString(lease.fencingToken());
        String state = stateWith(name);
        assertThat(state).contains("\"token\":" + token).contains(client.clientId());
        String owner = state.replaceAll("(?s).*\"name\":\"" + name + "\",\"kind\":\"lock\",\"owner\":\"([^\"]+)\".*",
                "$1");

        try (InputStream events = http.send(HttpRequest.newBuilder(URI.create(base() + "/events"))
                        .header("Authorization", LOGIN).build(),
                HttpResponse.BodyHandlers.ofInputStream()).body();
             BufferedReader lines = new BufferedReader(new InputStreamReader(events, StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("event: state");
            assertThat(lines.readLine()).startsWith("data: {").contains("\"name\":\"" + name + "\"")
                    .contains("\"token\":" + token);
        }

        String form = "name=" + name + "&kind=lock&owner=" + owner + "&token=" + token;
        HttpResponse<String> none = unlock(form, null, security);
        assertThat(none.statusCode()).as(none.body()).isEqualTo(403);
        assertThat(none.body()).contains(LockConsole.CSRF_HEADER);
        assertThat(unlock(form, "0".repeat(64), security).statusCode()).as("a token no page got").isEqualTo(403);
        assertThat(unlock(form, csrf, null).statusCode()).as("without Spring Security's token: refused by it (its "
                + "403 becomes a 401 on the error page's dispatch)").isIn(401, 403);
        assertThat(client.lock(name).isLocked()).as("still held").isTrue();

        HttpResponse<String> done = unlock(form, csrf, security);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(done.body()).contains("released");
        assertThat(client.lock(name).isLocked()).as("free for the next holder").isFalse();
        assertThat(get("/api/state").body()).contains("\"audit\":[{").contains("\"who\":\"ops\"")
                .contains("\"lock\":\"" + name + "\"");
    }

    /**
     * The page in headless chromium after the application's form login: live over server-sent events under the
     * actuator's path, a held lock shown with its token, and force-unlock from the page (which sends Spring
     * Security's CSRF token along with its own) frees it and shows the audit line.
     */
    @Test
    void inTheBrowserThePageIsLiveAndForceUnlocks() throws Exception {
        String chromium = "/usr/bin/chromium";
        String chromedriver = "/usr/bin/chromedriver";
        assertThat(new File(chromium).canExecute() && new File(chromedriver).canExecute())
                .as("chromium and chromium-driver (scripts/install-test-servers.sh installs them)").isTrue();
        long started = System.nanoTime();
        System.setProperty("SE_OFFLINE", "true");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-extensions", "--no-first-run");
        WebDriver browser = new ChromeDriver(new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(chromedriver)).usingAnyFreePort().build(), options);
        try {
            // the page redraws its tables at every change: an element found may be gone when read
            var wait = new WebDriverWait(browser, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class);
            String host = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            browser.get(host + "/login");
            browser.findElement(By.id("username")).sendKeys("ops");
            browser.findElement(By.id("password")).sendKeys("console-test-password");
            browser.findElement(By.cssSelector("button[type=submit]")).click();
            try {
                wait.until(d -> !d.getCurrentUrl().contains("/login"));
                browser.get(base() + "/");
                wait.until(d -> d.findElement(By.id("status")).getText().equals("live"));
            } catch (RuntimeException e) {
                throw new AssertionError("not logged in or not live: " + browser.getCurrentUrl() + "\n"
                        + browser.getPageSource(), e);
            }

            String name = "browser-job";
            LockLease lease = client.lock(name).acquire();
            String token = Long.toString(lease.fencingToken());
            wait.until(d -> {
                WebElement row = d.findElements(By.cssSelector("#holds tbody tr")).stream()
                        .filter(tr -> tr.getText().contains(name) && tr.getText().contains(token)).findFirst()
                        .orElse(null);
                if (row == null) {
                    return false;
                }
                row.findElement(By.cssSelector("button.danger")).click();
                return true;
            });
            wait.until(d -> d.findElement(By.id("confirm")).isDisplayed());
            browser.findElement(By.id("c-ok")).click();
            wait.until(d -> !client.lock(name).isLocked());
            wait.until(d -> d.findElements(By.cssSelector("#audit tbody tr")).stream()
                    .anyMatch(tr -> tr.getText().contains(name) && tr.getText().contains("ops")
                            && tr.getText().contains("released")));
        } finally {
            browser.quit();
        }
        System.out.printf("[console] Spring Boot 4 page in chromium: %d ms%n",
                (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    void onTheManagementPortWhenTheActuatorHasItsOwn() throws Exception {
        try (ConfigurableApplicationContext separate = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .properties("server.port=0", "management.server.port=0",
                        "latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri(), "latchkey.console.enabled=true",
                        "management.endpoints.web.exposure.include=latchkey",
                        "spring.security.user.name=ops", "spring.security.user.password=console-test-password")
                .run()) {
            String path = "/actuator/latchkey/console/";
            HttpResponse<String> management = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + separate.getEnvironment().getProperty("local.management.port") + path))
                    .header("Authorization", LOGIN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(management.statusCode()).isEqualTo(200);
            assertThat(management.body()).contains("latchkey-csrf");
            HttpResponse<String> application = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + separate.getEnvironment().getProperty("local.server.port") + path))
                    .header("Authorization", LOGIN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(application.statusCode()).as("not on the application's port").isEqualTo(404);
        }
    }

    @Test
    void servedOnlyWhenEnabledAndTheEndpointIsExposed() {
        WebApplicationContextRunner runner = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class,
                        LatchkeyActuatorAutoConfiguration.class, LatchkeyConsoleConfiguration.class))
                .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri());
        runner.run(context -> assertThat(context).doesNotHaveBean(LockConsole.class));
        runner.withPropertyValues("latchkey.console.enabled=true")
                .run(context -> assertThat(context).as("enabled, but no endpoint exposed over HTTP: passes through")
                        .getBean("latchkeyConsoleFilter").isNotInstanceOf(LatchkeyConsoleFilter.class));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
