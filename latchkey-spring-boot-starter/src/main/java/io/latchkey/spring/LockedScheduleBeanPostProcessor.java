package io.latchkey.spring;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * Proxies every bean with a {@link LockedSchedule} method, before Spring's {@code ScheduledAnnotationBeanPostProcessor}
 * sees the bean (order {@code LOWEST_PRECEDENCE - 1}), so that the scheduler calls the method through the proxy.
 * Checks every such method's attributes when the bean is created, so that a bad one fails the start.
 */
final class LockedScheduleBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
    private static final long serialVersionUID = 1L;

    private final transient LockedScheduleInterceptor interceptor;

    LockedScheduleBeanPostProcessor(LockedScheduleInterceptor interceptor) {
        this.interceptor = interceptor;
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, LockedSchedule.class, true),
                interceptor);
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
        setOrder(Ordered.LOWEST_PRECEDENCE - 1);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (isEligible(bean, beanName)) {
            interceptor.validate(AopUtils.getTargetClass(bean));
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }
}
