package io.latchkey.cli.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A server in a JVM of its own ({@link ZooKeeperServerMain}, {@link ZooKeeperMemberMain}), so that a fault run can
 * kill it with SIGKILL and start it again with the same arguments. The main class prints {@code READY} once it
 * serves; its other output is discarded.
 */
final class ServerJvm {

    private final String name;
    private final Class<?> main;
    private final List<String> args;
    private final List<String> prefix;
    private Process process;

    ServerJvm(String name, Class<?> main, List<String> args) {
        this(name, main, args, List.of());
    }

    /** @param prefix what runs the JVM's command, such as {@code ip netns exec NAME}; empty for nothing */
    ServerJvm(String name, Class<?> main, List<String> args, List<String> prefix) {
        this.name = name;
        this.main = main;
        this.args = List.copyOf(args);
        this.prefix = List.copyOf(prefix);
    }

    /** Starts the JVM and returns once it printed {@code READY}; fails if it exits first or after {@code timeout}. */
    ServerJvm start(Duration timeout) {
        List<String> command = new java.util.ArrayList<>(prefix);
        command.addAll(JavaCommand.of(main, args));
        ProcessBuilder b = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            process = b.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name, e);
        }
        Process p = process;
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.equals("READY")) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "latchkey-faults-" + name + "-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!ready.await(200, TimeUnit.MILLISECONDS)) {
                if (!p.isAlive() || System.nanoTime() - deadline > 0) {
                    boolean exited = !p.isAlive();
                    kill();
                    throw new IllegalStateException(String.format("%s did not start within %ds%s", name,
                            timeout.toSeconds(), exited ? " (it exited)" : ""));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
            throw new IllegalStateException("interrupted while starting " + name, e);
        }
        return this;
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL. Idempotent. */
    void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
