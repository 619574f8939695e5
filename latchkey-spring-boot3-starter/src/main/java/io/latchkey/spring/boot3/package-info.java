/**
 * What Spring Boot 3.5 needs beside {@code latchkey-spring-boot-starter}: the health indicator in Boot 3's
 * {@code org.springframework.boot.actuate.health} package.
 */
package io.latchkey.spring.boot3;
