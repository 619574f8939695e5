package io.latchkey.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server binary run as a child process for tests: started from the {@code PATH} in a working directory, its
 * output pumped by one named daemon thread into a bounded tail (shown when start-up fails) and the debug log,
 * and stopped with SIGTERM (then SIGKILL). Backend-neutral: each server fixture (Redis, PostgreSQL, MariaDB,
 * etcd) builds the command and the readiness probe, this class runs it.
 *
 * <p>Not thread-safe: a fixture drives it from the test thread.
 */
public final class ServerProcess {

    private static final Logger log = LoggerFactory.getLogger(ServerProcess.class);
    private static final int TAIL_LINES = 200;

    private final String name;
    private final List<String> command;
    private final Path workDir;
    private final Deque<String> tail = new ArrayDeque<>();
    private Process process;
    private Thread pump;

    /**
     * @param name a short name for thread names and messages, such as {@code "redis-server:6379"}
     * @param command the binary and its arguments; the binary is looked up on the {@code PATH}
     * @param workDir the process's working directory (must exist)
     */
    public ServerProcess(String name, List<String> command, Path workDir) {
        this.name = Objects.requireNonNull(name, "name");
        this.command = List.copyOf(command);
        this.workDir = Objects.requireNonNull(workDir, "workDir");
    }

    /**
     * Fails unless {@code binary} is an executable on the {@code PATH}.
     *
     * @param installHint how to install it, such as {@code "sudo apt-get install redis-server"}
     * @return the binary's absolute path
     * @throws IllegalStateException naming the binary and the install command
     */
    public static Path requireBinary(String binary, String installHint) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                Path candidate = Path.of(dir, binary);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException(String.format(
                "%s was not found on the PATH; the tests need a real server. Install it with `%s` "
                        + "(or run scripts/install-test-servers.sh from the project root).", binary, installHint));
    }

    /**
     * Starts the process and waits until {@code ready} answers {@code true} (polled every 10 ms).
     *
     * @throws IllegalStateException if the process exits first or is not ready within {@code timeout}; the
     *         message carries the tail of its output
     */
    public void start(BooleanSupplier ready, Duration timeout) {
        if (isAlive()) {
            throw new IllegalStateException(name + " is already running");
        }
        synchronized (tail) {
            tail.clear();
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + " (" + command.get(0) + ")", e);
        }
        Process started = process;
        pump = new Thread(() -> pumpOutput(started), "latchkey-test-" + name + "-output");
        pump.setDaemon(true);
        pump.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!started.isAlive()) {
                joinPump();
                throw new IllegalStateException(String.format("%s exited with status %d during start-up; output:%n%s",
                        name, started.exitValue(), recentOutput()));
            }
            if (ready.getAsBoolean()) {
                log.debug("{} is ready (pid {})", name, started.pid());
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                stop();
                throw new IllegalStateException(String.format("%s was not ready within %s; output:%n%s", name,
                        timeout, recentOutput()));
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop();
                throw new IllegalStateException("interrupted while starting " + name, e);
            }
        }
    }

    /** Whether the process runs. */
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The process id; fails if it never started. */
    public long pid() {
        if (process == null) {
            throw new IllegalStateException(name + " was not started");
        }
        return process.pid();
    }

    /** Stops the process gracefully (SIGTERM), forcibly after 10 s. Idempotent. */
    public void stop() {
        terminate(false);
    }

    /** Kills the process at once (SIGKILL), as a crash would. Idempotent. */
    public void kill() {
        terminate(true);
    }

    private void terminate(boolean force) {
        Process p = process;
        if (p == null) {
            return;
        }
        if (p.isAlive()) {
            if (force) {
                p.destroyForcibly();
            } else {
                p.destroy();
            }
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        joinPump();
    }

    private void joinPump() {
        Thread t = pump;
        if (t != null) {
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The last lines the process wrote (stdout and stderr). */
    public String recentOutput() {
        synchronized (tail) {
            return String.join(System.lineSeparator(), new ArrayList<>(tail));
        }
    }

    private void pumpOutput(Process p) {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                log.debug("[{}] {}", name, line);
                synchronized (tail) {
                    if (tail.size() == TAIL_LINES) {
                        tail.removeFirst();
                    }
                    tail.addLast(line);
                }
            }
        } catch (IOException e) {
            // The stream closes when the process dies: nothing left to pump.
        }
    }

    @Override
    public String toString() {
        return "ServerProcess{" + name + (isAlive() ? ", pid " + process.pid() : ", stopped") + "}";
    }
}
