/**
 * What the Spring Boot, Micronaut and Quarkus integrations share, free of any framework: one composite of the
 * application's event listeners, the Micrometer meters, the lease of the running locked method, the delayed releases
 * of scheduled runs ({@code lockAtLeastFor}) and the duration text of annotation attributes. Applications use the
 * integrations' own types ({@code LockedRun}, {@code @Locked}); this package is for the integrations.
 */
package io.latchkey.integration;
