package io.latchkey.jdbc;

/** In-memory H2 has no connection to cut: only the records' life is tested here (the give-back is MariaDB's path). */
class H2SemaphoreLostAnswerTest extends SemaphoreLostAnswerTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }

    @Override
    void permitsTakenByAnAttemptWhoseAnswerWasLostComeBackOnce() {
        // not a test here (no @Test): nothing between the client and in-memory H2 can lose an answer
    }

    @Override
    void aLockRowWrittenByAnAttemptWhoseAnswerWasLostIsDeleted() {
        // not a test here either: the lock's clean-up is tested below the engine (H2JdbcLockOpsTest)
    }
}
