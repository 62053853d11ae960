/**
 * The web console ({@code redis-kit.console.enabled=true}): pages for every primitive, served from the jar at
 * {@code redis-kit.console.path} for Spring MVC and WebFlux applications, fed by JSON endpoints under the same
 * path that read the primitives' own APIs and the application's Micrometer meters.
 */
@NullMarked
package io.rediskit.autoconfigure.console;

import org.jspecify.annotations.NullMarked;
