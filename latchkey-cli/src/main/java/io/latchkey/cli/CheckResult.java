package io.latchkey.cli;

/** One row of {@code latchkey verify}'s table: which property, whether it held, and the evidence for the verdict. */
record CheckResult(String check, Status status, String evidence) {

    enum Status { PASS, FAIL, SKIP }

    static CheckResult pass(String check, String evidence) {
        return new CheckResult(check, Status.PASS, evidence);
    }

    static CheckResult fail(String check, String evidence) {
        return new CheckResult(check, Status.FAIL, evidence);
    }

    static CheckResult skip(String check, String reason) {
        return new CheckResult(check, Status.SKIP, reason);
    }

    /** The verdict for a check that could not run to its end: SKIP when the backend lacks the feature, else FAIL. */
    static CheckResult fromFailure(String check, RuntimeException e) {
        String message = Secrets.mask(Connector.firstLine(String.valueOf(e.getMessage())));
        if (e instanceof UnsupportedOperationException) {
            return skip(check, "not supported by this backend: " + message);
        }
        return fail(check, "error: " + e.getClass().getSimpleName() + ": " + message);
    }
}
