package io.latchkey.cli;

import io.latchkey.testing.sql.SqlServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The console on PostgreSQL in a browser. */
class ConsolePostgresBrowserTest extends ConsoleBrowserTestBase {

    @RegisterExtension
    static final SqlServerExtension POSTGRES = SqlServerExtension.postgres();

    @Override
    String uri() {
        return POSTGRES.jdbcUrl();
    }
}
