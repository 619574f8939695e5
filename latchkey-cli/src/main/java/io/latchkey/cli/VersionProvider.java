package io.latchkey.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar's manifest, which the build writes. */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Main.class.getPackage().getImplementationVersion();
        return new String[] {"latchkey " + (version == null ? "(development build)" : version),
                "Java " + Runtime.version() + " on " + System.getProperty("os.name")};
    }
}
