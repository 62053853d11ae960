/**
 * The live instances of an application on one Redis deployment: {@link io.rediskit.instance.InstanceRegistry}
 * keeps a heartbeat of this instance (its name, host, pid, version, start, what it runs and the locks it holds)
 * on the shared {@code Background}, and lists every instance heard from, alive or gone, by the server's clock.
 * The console reads it for its cluster-wide views. Scripts under {@code META-INF/redis-kit/scripts/instance/}.
 */
@NullMarked
package io.rediskit.instance;

import org.jspecify.annotations.NullMarked;
