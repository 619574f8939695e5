package io.latchkey.testing.sql;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Finds server binaries on the PATH or where Debian packages put them outside it. */
final class Binaries {

    private Binaries() {
    }

    /**
     * The first executable {@code binary} on the PATH or in {@code extraDirs}.
     *
     * @throws IllegalStateException naming the binary and the install command
     */
    static Path find(String binary, String installHint, List<Path> extraDirs) {
        List<Path> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    dirs.add(Path.of(dir));
                }
            }
        }
        dirs.addAll(extraDirs);
        for (Path dir : dirs) {
            Path candidate = dir.resolve(binary);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException(String.format(
                "%s was not found on the PATH or in %s; the tests need a real server. Install it with `%s` "
                        + "(or run scripts/install-test-servers.sh from the project root).", binary, extraDirs,
                installHint));
    }

    /** Whether this JVM runs as root (uid 0), which PostgreSQL and MariaDB refuse without help. */
    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Runs a short helper command to completion; fails with its output if it exits non-zero. */
    static void run(List<String> command, Path workDir, long timeoutSeconds) {
        try {
            Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeoutSeconds, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " did not finish within " + timeoutSeconds + " s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.format("%s exited with %d:%n%s", command, p.exitValue(),
                        new String(out, java.nio.charset.StandardCharsets.UTF_8)));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("could not run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
    static boolean listening(int port) {
        return listening("127.0.0.1", port);
    }

    /** Whether something accepts TCP connections on {@code host}:{@code port}. */
    static boolean listening(String host, int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(host, port), 200);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
