package io.latchkey.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns {@link LockClientNotConfiguredException} into Spring Boot's "APPLICATION FAILED TO START" advice. */
final class LockClientNotConfiguredFailureAnalyzer extends AbstractFailureAnalyzer<LockClientNotConfiguredException> {

    /** One URI per backend module, as the starter's README lists them. */
    static final String URI_EXAMPLES = "redis://host:6379, zookeeper://host:2181, etcd://host:2379, "
            + "jdbc:postgresql://host/db, file:///var/lib/app/locks, mem://name";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockClientNotConfiguredException cause) {
        String description = "Latchkey needs a backend for its LockClient bean, but found none:\n  - "
                + String.join("\n  - ", cause.looked());
        String action = "Set latchkey.uri (" + URI_EXAMPLES + ") and add the backend's module (latchkey-redis, "
                + "latchkey-zookeeper, latchkey-etcd, latchkey-jdbc or latchkey-file), or define exactly one Lettuce "
                + "RedisClient/RedisClusterClient, Curator CuratorFramework or DataSource bean and add the matching "
                + "latchkey-redis, latchkey-zookeeper or latchkey-jdbc dependency, or define your own LockClient bean.";
        return new FailureAnalysis(description, action, cause);
    }
}
