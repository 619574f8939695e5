package io.latchkey.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns {@link LockClientNotConfiguredException} into Spring Boot's "APPLICATION FAILED TO START" advice. */
final class LockClientNotConfiguredFailureAnalyzer extends AbstractFailureAnalyzer<LockClientNotConfiguredException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockClientNotConfiguredException cause) {
        String description = "Latchkey needs a backend for its LockClient bean, but found none:\n  - "
                + String.join("\n  - ", cause.looked());
        String action = "Set latchkey.uri (redis://host:6379, zookeeper://host:2181, jdbc:postgresql://host/db, "
                + "mem://name), or define exactly one Lettuce RedisClient/RedisClusterClient, Curator "
                + "CuratorFramework or DataSource bean and add the matching latchkey-redis, latchkey-zookeeper or "
                + "latchkey-jdbc dependency, or define your own LockClient bean.";
        return new FailureAnalysis(description, action, cause);
    }
}
