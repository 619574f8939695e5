package io.latchkey.testing.sql;

import io.latchkey.testing.FakeClock;
import io.latchkey.testing.ServerProcess;
import io.latchkey.testing.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;

/**
 * What the PostgreSQL and MariaDB fixtures share: a server process in a temporary directory of its own, started
 * on a free port (again on another port when something took the probed one before the server bound it), killed
 * like a crash, and deleted with its data on {@link #close()}.
 */
public abstract class SqlServerProcess implements AutoCloseable {

    Path dir;
    int port;
    ServerProcess process;
    private boolean fakeClock;
    private FakeClock clock;
    private io.latchkey.testing.NetworkNamespace namespace;
    private String host = "127.0.0.1";

    /**
     * Runs the server inside {@code namespace}, listening on its {@link io.latchkey.testing.NetworkNamespace#address()}
     * instead of 127.0.0.1, so that cutting the namespace's link partitions it from every client. Call before
     * {@link #start()}; the caller closes the namespace after the server.
     */
    public void inNamespace(io.latchkey.testing.NetworkNamespace namespace) {
        if (process != null) {
            throw new IllegalStateException("inNamespace must be called before start()");
        }
        this.namespace = namespace;
        this.host = namespace.address();
    }

    /**
     * Runs the server under a {@link FakeClock} from its next start on, so that a test can jump its wall clock (and
     * with it {@code now()}, which times the lease rows) through {@link #clock()}. Call before {@link #start()}.
     *
     * @throws IllegalStateException if libfaketime is not installed, naming {@link FakeClock#INSTALL_HINT}
     */
    public void withFakeClock() {
        if (FakeClock.library().isEmpty()) {
            throw new IllegalStateException("libfaketime is not installed; install it with `"
                    + FakeClock.INSTALL_HINT + "`");
        }
        fakeClock = true;
    }

    /** The server's clock, once started {@link #withFakeClock() with one}. */
    public FakeClock clock() {
        if (clock == null) {
            throw new IllegalStateException(this + " does not run under a fake clock");
        }
        return clock;
    }

    /** {@code command}, run on the fake clock if the server has one (created in the server's directory). */
    final List<String> onClock(List<String> command) {
        if (fakeClock && clock == null) {
            clock = FakeClock.create(dir);
        }
        return clock == null ? command : clock.wrap(command);
    }

    /** Starts the server if it is not running. */
    public abstract void start();

    /** Stops the server cleanly. Keeps the data for {@link #start()}. */
    public void stop() {
        if (process != null) {
            process.stop();
        }
    }

    /**
     * Starts {@code command.apply(port)} until it logs {@code readyLine} and listens, trying a new free port when
     * its output says {@code bindFailure}.
     */
    final void startOnFreePort(String processName, IntFunction<List<String>> command, String readyLine,
                               String bindFailure) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            port = port == 0 || attempt > 0 ? TestFiles.freePort() : port;
            List<String> c = command.apply(port);
            process = new ServerProcess(processName + ":" + port, namespace == null ? c : namespace.wrap(c), dir);
            ServerProcess p = process;
            int listening = port;
            try {
                p.start(() -> p.recentOutput().contains(readyLine) && Binaries.listening(host, listening),
                        Duration.ofSeconds(60));
                return;
            } catch (IllegalStateException e) {
                last = e;
                if (!p.recentOutput().contains(bindFailure)) {
                    throw e;
                }
            }
        }
        throw last;
    }

    /** Kills the server (SIGKILL), as a crash would. */
    public void kill() {
        if (process != null) {
            process.kill();
        }
    }

    @Override
    public void close() {
        stop();
        TestFiles.deleteRecursively(dir);
        dir = null;
    }

    /** 127.0.0.1, or the namespace's address when the server runs {@link #inNamespace in one}. */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The JDBC URL of the fixture's database, as its superuser. */
    public abstract String jdbcUrl();

    /** The server's recent log lines. */
    public String recentOutput() {
        return process == null ? "" : process.recentOutput();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + (process == null ? "not started" : process) + "}";
    }
}
