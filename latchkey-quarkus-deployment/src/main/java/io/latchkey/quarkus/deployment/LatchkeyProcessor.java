package io.latchkey.quarkus.deployment;

import io.latchkey.LockNameTemplate;
import io.latchkey.integration.DurationText;
import io.latchkey.quarkus.Locked;
import io.latchkey.quarkus.LockedScheduled;
import io.latchkey.quarkus.internal.LatchkeyHealthCheck;
import io.latchkey.quarkus.internal.MicrometerLockEventListener;
import io.latchkey.spi.LockClientProvider;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.AdditionalIndexedClassesBuildItem;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ServiceProviderBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;
import io.quarkus.smallrye.health.deployment.spi.HealthBuildItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.DotName;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;

/**
 * The build steps of latchkey-quarkus: its beans and interceptors, the check of every {@code @Locked} and
 * {@code @LockedScheduled} method (a bad template, duration or return type fails the build naming the method), the
 * readiness check and meters when their extensions are present, and the service-loader registrations a native image
 * needs to find the backends on the class path.
 */
class LatchkeyProcessor {

    static final String FEATURE = "latchkey";
    private static final DotName LOCKED = DotName.createSimple(Locked.class.getName());
    private static final DotName LOCKED_SCHEDULED = DotName.createSimple(LockedScheduled.class.getName());

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    AdditionalBeanBuildItem beans() {
        return AdditionalBeanBuildItem.builder()
                .addBeanClasses(Locked.class.getName(), LockedScheduled.class.getName(),
                        "io.latchkey.quarkus.LatchkeyProducer", "io.latchkey.quarkus.LockedInterceptor",
                        "io.latchkey.quarkus.LockedScheduledInterceptor", "io.latchkey.quarkus.DelayedReleases")
                .setUnremovable().build();
    }

    @BuildStep
    void health(Capabilities capabilities, BuildProducer<HealthBuildItem> health) {
        if (capabilities.isPresent(Capability.SMALLRYE_HEALTH)) {
            health.produce(new HealthBuildItem(LatchkeyHealthCheck.class.getName(), true));
        }
    }

    @BuildStep
    void metrics(Optional<MetricsCapabilityBuildItem> metrics, BuildProducer<AdditionalBeanBuildItem> beans,
                 BuildProducer<AdditionalIndexedClassesBuildItem> indexed) {
        if (metrics.isPresent() && metrics.get().metricsSupported(MetricsFactory.MICROMETER)) {
            beans.produce(AdditionalBeanBuildItem.unremovableOf(MicrometerLockEventListener.class));
            // its superclass lives in latchkey-integration, a plain jar (no beans): indexed so that CDI sees the bean
            // class's whole hierarchy
            indexed.produce(new AdditionalIndexedClassesBuildItem(
                    io.latchkey.integration.MicrometerLockEventListener.class.getName()));
        }
    }

    /** The backends' {@code META-INF/services/io.latchkey.spi.LockClientProvider} entries, kept in a native image. */
    @BuildStep
    void nativeImage(BuildProducer<ServiceProviderBuildItem> services,
                     BuildProducer<ReflectiveClassBuildItem> reflection) {
        ServiceProviderBuildItem providers =
                ServiceProviderBuildItem.allProvidersFromClassPath(LockClientProvider.class.getName());
        services.produce(providers);
        if (!providers.providers().isEmpty()) {
            reflection.produce(ReflectiveClassBuildItem.builder(providers.providers().toArray(new String[0]))
                    .constructors().build());
        }
    }

    /** Every {@code @Locked} and {@code @LockedScheduled} method, checked as its interceptor will read it. */
    @BuildStep
    void validate(CombinedIndexBuildItem index, BuildProducer<ValidationErrorBuildItem> errors) {
        List<Throwable> found = new ArrayList<>();
        for (AnnotationInstance locked : index.getIndex().getAnnotations(LOCKED)) {
            check(locked, found, LatchkeyProcessor::checkLocked);
        }
        for (AnnotationInstance scheduled : index.getIndex().getAnnotations(LOCKED_SCHEDULED)) {
            check(scheduled, found, LatchkeyProcessor::checkScheduled);
        }
        if (!found.isEmpty()) {
            errors.produce(new ValidationErrorBuildItem(found));
        }
    }

    private interface Check {
        void check(String where, MethodInfo method, AnnotationInstance annotation);
    }

    private static void check(AnnotationInstance annotation, List<Throwable> found, Check check) {
        String simple = "@" + annotation.name().withoutPackagePrefix();
        AnnotationTarget target = annotation.target();
        if (target.kind() == AnnotationTarget.Kind.CLASS) {
            String type = target.asClass().name().toString();
            if (type.startsWith("io.latchkey.quarkus.")) {
                return; // the interceptor's own binding
            }
            found.add(new IllegalArgumentException(simple + " on class " + type + ": it belongs on each method, "
                    + "whose parameters its lock name refers to"));
            return;
        }
        if (target.kind() != AnnotationTarget.Kind.METHOD) {
            return;
        }
        MethodInfo method = target.asMethod();
        String where = simple + " on " + method.declaringClass().name() + "." + method.name() + "("
                + method.parameterTypes().stream().map(Type::toString).reduce((a, b) -> a + ", " + b).orElse("")
                + ")";
        try {
            check.check(where, method, annotation);
        } catch (IllegalArgumentException | IllegalStateException e) {
            found.add(e);
        }
    }

    private static void checkLocked(String where, MethodInfo method, AnnotationInstance locked) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < method.parametersCount(); i++) {
            String name = method.parameterName(i);
            names.add(name == null ? "arg" + i : name);
        }
        AnnotationValue name = locked.value("name");
        try {
            LockNameTemplate.parse(name == null ? "" : name.asString(), names);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        duration(where + " waitTime", locked.value("waitTime"), false);
        Duration lease = duration(where + " leaseTime", locked.value("leaseTime"), false);
        if (lease != null && lease.isZero()) {
            throw new IllegalArgumentException(where + ": leaseTime must be positive");
        }
    }

    private static void checkScheduled(String where, MethodInfo method, AnnotationInstance scheduled) {
        if (method.returnType().kind() != Type.Kind.VOID) {
            throw new IllegalStateException(where + ": the method must return void (a skipped run has no result)");
        }
        Duration atMost = duration(where + " lockAtMostFor", scheduled.value("lockAtMostFor"), false);
        Duration atLeast = duration(where + " lockAtLeastFor", scheduled.value("lockAtLeastFor"), true);
        if (atMost != null && atMost.isZero()) {
            throw new IllegalArgumentException(where + ": lockAtMostFor must be positive");
        }
        if (atMost != null && atLeast != null && atLeast.compareTo(atMost) > 0) {
            throw new IllegalArgumentException(String.format("%s: lockAtLeastFor (%s) must not exceed lockAtMostFor "
                    + "(%s)", where, atLeast, atMost));
        }
    }

    /** The attribute's duration; null when it is absent or blank (an absent lockAtLeastFor is its default, 0s). */
    private static Duration duration(String what, AnnotationValue value, boolean zeroByDefault) {
        if (value == null || value.asString().isBlank()) {
            return zeroByDefault ? Duration.ZERO : null;
        }
        return DurationText.parse(what, value.asString());
    }
}
