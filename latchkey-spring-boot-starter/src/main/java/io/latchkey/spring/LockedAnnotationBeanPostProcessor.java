package io.latchkey.spring;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Proxies every bean with a {@link Locked} method (like {@code @Async} and {@code @Validated} do, so that no
 * AspectJ weaver is needed). Class-based proxies, as Spring Boot's default, so that beans without interfaces work.
 * Only calls through the proxy are locked: a {@code @Locked} method called on {@code this} runs unlocked, as with
 * every Spring proxy.
 */
final class LockedAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
    private static final long serialVersionUID = 1L;

    LockedAnnotationBeanPostProcessor(LockedMethodInterceptor interceptor) {
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Locked.class, true),
                interceptor);
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
    }
}
