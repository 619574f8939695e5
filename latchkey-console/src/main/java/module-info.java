/**
 * The lock console, free of any web server: {@link io.latchkey.console.LockConsole} reads a client's locks, keeps
 * their timeline and audit log, and answers the page's requests through {@link io.latchkey.console.ConsoleExchange},
 * which the server that carries it implements.
 *
 * <p>{@code io.latchkey.console.internal} is not exported and not part of the API: the command line, which runs on the
 * class path, reads leader records with it ({@code latchkey inspect}).
 */
module io.latchkey.console {
    requires transitive io.latchkey;

    exports io.latchkey.console;
}
