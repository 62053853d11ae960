/**
 * The {@code web} benchmark: what a rate limiter on a route costs per HTTP request, in WebFlux and in Spring MVC.
 */
@NullMarked
package io.rediskit.benchmarks.web;

import org.jspecify.annotations.NullMarked;
