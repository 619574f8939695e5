/**
 * The SQL backend ({@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:}, {@code jdbc:h2:}).
 * {@code io.latchkey.jdbc} is the client package (it takes a {@link javax.sql.DataSource}, hence
 * {@code requires transitive java.sql}); {@code io.latchkey.jdbc.internal} is not exported.
 *
 * <p>The drivers are optional: they are found through {@code java.sql.Driver} services, and only the PostgreSQL
 * driver is named in code (LISTEN/NOTIFY wake-ups), hence {@code requires static org.postgresql.jdbc}.
 */
module io.latchkey.jdbc {
    requires transitive io.latchkey;
    requires transitive java.sql;
    requires io.latchkey.core;
    requires com.zaxxer.hikari;
    requires org.slf4j;
    requires static org.postgresql.jdbc;

    exports io.latchkey.jdbc;

    provides io.latchkey.spi.LockClientProvider with io.latchkey.jdbc.internal.JdbcLockClientProvider;
}
