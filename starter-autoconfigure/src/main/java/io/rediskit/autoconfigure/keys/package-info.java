/**
 * Auto-configuration of the key-space tools: the {@code KeyTools} bean, its Micrometer listener and the
 * read-only {@code rediskitkeys} actuator endpoint (off by default).
 */
@NullMarked
package io.rediskit.autoconfigure.keys;

import org.jspecify.annotations.NullMarked;
