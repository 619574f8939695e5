/**
 * Spring Boot 4 (and, with latchkey-spring-boot3-starter, 3.5) integration of Latchkey: {@link io.latchkey.spring.LatchkeyAutoConfiguration} builds one
 * {@link io.latchkey.LockClient} bean (from {@code latchkey.uri} or from the application's Lettuce, Curator or
 * {@code DataSource} bean), {@link io.latchkey.spring.Locked} guards a method with a distributed lock, and, when they
 * are on the class path, Micrometer meters, the {@code latchkey} actuator endpoint and a health indicator.
 */
package io.latchkey.spring;
