package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import picocli.CommandLine;

/**
 * {@code latchkey console} in a real browser (headless chromium through the system's chromedriver), one backend per
 * subclass: one console and one browser for the whole class. Locks are held by clients of this JVM other than the
 * console's own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class ConsoleBrowserTestBase {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    /** Within how long the page must show a change. */
    static final Duration SHOWN_WITHIN = Duration.ofSeconds(2);

    static ClientOptions options(String clientName) {
        return ClientOptions.builder()
                .watchdogTimeout(Duration.ofSeconds(6))
                .operationTimeout(Duration.ofSeconds(5))
                .clientName(clientName)
                .build();
    }

    private Thread consoleThread;
    private ConsoleCommand command;
    private final StringWriter consoleOut = new StringWriter();
    private final StringWriter consoleErr = new StringWriter();
    protected String base;
    protected WebDriver browser;
    protected Path auditFile;
    protected LockClient holder;
    protected LockClient other;
    private final List<LockLease> leases = new ArrayList<>();
    private io.latchkey.Leadership leadership;

    /** The backend's URI, for the console and the clients. */
    abstract String uri();

    /** Stops the backend's server, after the console, the browser and the clients. */
    void stopServer() throws Exception {
    }

    /** Whether the backend's inspector counts a plain lock's waiters (ZooKeeper and etcd do; Redis, SQL, file not). */
    boolean waitersKnown() {
        return false;
    }

    /** Whether this class also saves the screenshot of the page. */
    boolean screenshot() {
        return false;
    }

    @BeforeAll
    void startConsoleAndBrowser() throws Exception {
        if (!new File(CHROMIUM).canExecute() || !new File(CHROMEDRIVER).canExecute()) {
            fail("the console's browser tests need %s and %s (Debian: chromium, chromium-driver); install them with "
                    + "scripts/install-test-servers.sh", CHROMIUM, CHROMEDRIVER);
        }
        auditFile = Files.createTempFile("latchkey-console-audit", ".log");
        CommandLine cli = Main.commandLine(new PrintWriter(consoleOut, true), new PrintWriter(consoleErr, true));
        command = (ConsoleCommand) cli.getSubcommands().get("console").getCommand();
        consoleThread = new Thread(() -> Main.run(cli, "console", uri(), "--port", "0", "--audit-file",
                auditFile.toString()), "console-under-test");
        consoleThread.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (command.listening == null) {
            assertThat(consoleThread.isAlive()).as("console ended: %s %s", consoleOut, consoleErr).isTrue();
            assertThat(System.nanoTime()).as("console did not start: %s %s", consoleOut, consoleErr)
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        InetSocketAddress a = command.listening;
        base = "http://127.0.0.1:" + a.getPort();
        long started = System.nanoTime();
        holder = LockClient.connect(uri(), options("billing-worker-1"));
        other = LockClient.connect(uri(), options("reports-worker-2"));
        browser = startBrowser();
        browser.get(base + "/");
        waitFor("the page is live", () -> text(By.id("status")).equals("live"));
        System.out.printf("[console] %s: browser and page ready in %d ms%n", getClass().getSimpleName(),
                (System.nanoTime() - started) / 1_000_000);
    }

    static WebDriver startBrowser() {
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        System.setProperty("SE_OFFLINE", "true");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1440,1000", "--disable-extensions", "--no-first-run");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    @AfterAll
    void stop() throws Exception {
        long t0 = System.nanoTime();
        for (LockLease l : leases) {
            try {
                l.release();
            } catch (RuntimeException e) {
                // force-unlocked
            }
        }
        if (leadership != null) {
            leadership.close();
        }
        long t1 = System.nanoTime();
        if (browser != null) {
            browser.quit();
        }
        long t2 = System.nanoTime();
        if (holder != null) {
            holder.close();
        }
        if (other != null) {
            other.close();
        }
        long t3 = System.nanoTime();
        if (command != null) {
            command.stop.countDown();
        }
        if (consoleThread != null) {
            consoleThread.join(10_000);
            assertThat(consoleThread.isAlive()).as("the console stops").isFalse();
        }
        stopServer();
        System.out.printf("[console] %s stop: releases %d ms, browser %d ms, clients %d ms, console %d ms%n",
                getClass().getSimpleName(), (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000,
                (System.nanoTime() - t3) / 1_000_000);
        assertThat(Thread.getAllStackTraces().keySet()).as("the console's threads end with it")
                .noneMatch(t -> t.getName().startsWith("latchkey-console-") && t.isAlive());
    }

    LockLease hold(String name) throws InterruptedException {
        LockLease l = holder.lock(name).acquire();
        leases.add(l);
        return l;
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    String text(By by) {
        try {
            return browser.findElement(by).getText();
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** The row of {@code name} in "Held now", or empty. */
    Optional<WebElement> row(String name) {
        for (WebElement tr : browser.findElements(By.cssSelector("#holds tbody tr"))) {
            try {
                if (name.equals(tr.findElement(By.cssSelector("td.name")).getText())) {
                    return Optional.of(tr);
                }
            } catch (StaleElementReferenceException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The classes of the timeline bars of {@code name}. */
    List<String> bars(String name) {
        Object classes = ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
                "const out = [];"
                        + "document.querySelectorAll('#timeline g.tl-row').forEach(g => {"
                        + "  if (g.getAttribute('data-name') === arguments[0])"
                        + "    g.querySelectorAll('rect.tl-bar').forEach(r => out.push(r.getAttribute('class')));"
                        + "});"
                        + "return out;", name);
        @SuppressWarnings("unchecked")
        List<String> list = (List<String>) classes;
        return list;
    }

    long waitFor(String what, Supplier<Boolean> condition) throws InterruptedException {
        return waitFor(what, condition, Duration.ofSeconds(10));
    }

    /** Waits for {@code condition}; returns how long it took in milliseconds. */
    long waitFor(String what, Supplier<Boolean> condition, Duration within) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + within.toNanos();
        while (true) {
            boolean ok;
            try {
                ok = condition.get();
            } catch (StaleElementReferenceException e) {
                ok = false;
            }
            if (ok) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            }
            if (System.nanoTime() > deadline) {
                fail("not within %s: %s (console output: %s %s)", within, what, consoleOut, consoleErr);
            }
            Thread.sleep(50);
        }
    }

    @Test
    void aHeldLockAppearsWithItsTokenAndDisappearsWhenReleased() throws Exception {
        String name = unique("orders");
        LockLease lease = hold(name);
        String token = String.valueOf(lease.fencingToken());
        long shown = waitFor(name + " shown with token " + token, () -> row(name)
                .map(r -> r.findElement(By.cssSelector("td.token")).getText().equals(token)).orElse(false),
                SHOWN_WITHIN);
        WebElement shownRow = row(name).orElseThrow();
        assertThat(shownRow.getText()).contains(holder.clientId());
        assertThat(shownRow.findElement(By.cssSelector("td.client")).getText()).isEqualTo("billing-worker-1");
        assertThat(shownRow.findElement(By.cssSelector("td.since")).getText())
                .as("held since as the backend records it, not as first seen").doesNotStartWith("≥");
        lease.release();
        leases.remove(lease);
        long gone = waitFor(name + " gone", () -> row(name).isEmpty(), SHOWN_WITHIN);
        waitFor("its bar ends on the timeline", () -> {
            List<String> b = bars(name);
            return b.size() == 1 && b.get(0).contains("ended") && b.get(0).contains("released");
        }, SHOWN_WITHIN);
        System.out.printf("[console] %s: shown after %d ms, gone after %d ms%n", getClass().getSimpleName(), shown,
                gone);
    }

    @Test
    void aWaiterIsCountedWhereTheBackendKnowsWaiters() throws Exception {
        if (!waitersKnown()) {
            return;
        }
        String name = unique("queue");
        LockLease lease = hold(name);
        CompletableFuture<LockLease> waiting = other.lock(name).acquireAsync();
        waitFor(name + " shown with one waiter", () -> row(name)
                .map(r -> r.findElement(By.cssSelector("td.waiters")).getText().equals("1")).orElse(false),
                SHOWN_WITHIN);
        lease.release();
        leases.remove(lease);
        waiting.get(10, TimeUnit.SECONDS).release();
        waitFor(name + " gone", () -> row(name).isEmpty(), SHOWN_WITHIN);
    }

    @Test
    void forceUnlockFromThePageFreesTheLockAndIsAudited() throws Exception {
        String name = unique("payments");
        LockLease lease = hold(name);
        String token = String.valueOf(lease.fencingToken());
        waitFor(name + " shown", () -> row(name).isPresent(), SHOWN_WITHIN);
        waitFor("the force-unlock button clicked", () -> {
            row(name).orElseThrow().findElement(By.cssSelector("button.danger")).click();
            return true;
        });
        WebElement dialog = browser.findElement(By.id("confirm"));
        waitFor("the confirmation dialog", dialog::isDisplayed);
        assertThat(browser.findElement(By.id("c-name")).getText()).isEqualTo(name);
        assertThat(browser.findElement(By.id("c-token")).getText()).isEqualTo(token);
        assertThat(browser.findElement(By.id("c-owner")).getText()).contains(holder.clientId());
        assertThat(browser.findElement(By.id("c-client")).getText()).isEqualTo("billing-worker-1");
        browser.findElement(By.id("c-ok")).click();
        waitFor("another client acquires it", () -> {
            try {
                Optional<LockLease> next = other.lock(name).tryAcquire(Duration.ZERO);
                next.ifPresent(leases::add);
                return next.isPresent();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, SHOWN_WITHIN);
        waitFor("the audit log shows it", () -> browser.findElements(By.cssSelector("#audit tbody tr")).stream()
                .anyMatch(tr -> tr.getText().contains(name) && tr.getText().contains(token)
                        && tr.getText().contains("released") && tr.getText().contains("local")), SHOWN_WITHIN);
        assertThat(Files.readString(auditFile)).contains(name).contains("token=" + token).contains("released")
                .contains("(billing-worker-1)")
                .contains("local").contains("127.0.0.1");
        waitFor("the old hold's bar ends as force-unlocked", () -> bars(name).stream()
                .anyMatch(c -> c.contains("force-unlocked")), SHOWN_WITHIN);
    }

    @Test
    void aPostWithoutTheCsrfTokenIsRefused() throws Exception {
        String name = unique("csrf");
        LockLease lease = hold(name);
        waitFor(name + " shown", () -> row(name).isPresent(), SHOWN_WITHIN);
        String form = "name=" + name + "&kind=lock&owner=x&token=" + lease.fencingToken();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(base + "/api/unlock"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(none.statusCode()).as(none.body()).isEqualTo(403);
        assertThat(none.body()).contains("X-Latchkey-Csrf");
        HttpResponse<String> forged = http.send(HttpRequest.newBuilder(URI.create(base + "/api/unlock"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("X-Latchkey-Csrf", "0".repeat(64))
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(ConsoleServer.CSP);
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        String csrf = page.body().replaceAll("(?s).*name=\"latchkey-csrf\" content=\"([0-9a-f]+)\".*", "$1");
        HttpResponse<String> otherOrigin = http.send(HttpRequest.newBuilder(URI.create(base + "/api/unlock"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("X-Latchkey-Csrf", csrf)
                .header("Origin", "http://evil.example")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(otherOrigin.statusCode()).as(otherOrigin.body()).isEqualTo(403);
        HttpResponse<String> staleHolder = http.send(HttpRequest.newBuilder(URI.create(base + "/api/unlock"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("X-Latchkey-Csrf", csrf)
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(staleHolder.statusCode()).as("not the hold seen: 409 naming the holder").isEqualTo(409);
        assertThat(staleHolder.body()).contains(holder.clientId()).contains("nothing was released");
        assertThat(holder.lock(name).isLocked()).as("still held").isTrue();
        lease.release();
        leases.remove(lease);
    }

    @Test
    void aHostileLockNameIsShownAsText() throws Exception {
        String name = "<img src=x onerror=alert(1)>";
        LockLease lease = hold(name);
        waitFor("the name shown as text", () -> row(name).isPresent(), SHOWN_WITHIN);
        assertThat(browser.findElements(By.cssSelector("img"))).as("no element made from the name").isEmpty();
        assertThatNoAlert();
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).toList();
        assertThat(severe).as("browser console errors").isEmpty();
        lease.release();
        leases.remove(lease);
        waitFor("gone", () -> row(name).isEmpty(), SHOWN_WITHIN);
    }

    private void assertThatNoAlert() {
        try {
            browser.switchTo().alert();
            fail("an alert ran");
        } catch (NoAlertPresentException expected) {
            // no script ran
        }
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void screenshotWithAFewLocksHeld() throws Exception {
        if (!screenshot()) {
            return;
        }
        // a short history first: holds that ended, so that the timeline has bars that end
        for (int i = 0; i < 3; i++) {
            LockLease l = holder.lock("inventory-sync").acquire();
            Thread.sleep(450);
            l.release();
            Thread.sleep(250);
        }
        hold("billing:invoice-run");
        Thread.sleep(300);
        hold("orders:eu-west");
        LockLease again = other.lock("reports:nightly").acquire();
        leases.add(again);
        holder.semaphore("thumbnails").trySetPermits(4);
        holder.semaphore("thumbnails").tryAcquire();
        leadership = other.leaderElection("scheduler", "node-7").awaitLeadership();
        waitFor("all shown", () -> row("orders:eu-west").isPresent() && row("reports:nightly").isPresent()
                && row("scheduler").isPresent());
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(1440, 1330));
        Thread.sleep(700);
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Path out = Path.of("target", "console.png");
        Files.write(out, png);
        System.out.printf("[console] screenshot: %s (%d bytes)%n", out.toAbsolutePath(), png.length);
        assertThat(Map.of("png", png.length)).containsKey("png");
    }
}
