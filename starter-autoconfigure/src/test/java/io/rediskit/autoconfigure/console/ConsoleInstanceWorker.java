package io.rediskit.autoconfigure.console;

import java.time.Duration;

import io.rediskit.instance.InstanceRegistry;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.leader.LeaderElection;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.testsupport.WorkerLifetime;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A second application instance for {@link ConsoleInstancesBrowserTests}, in its own JVM so that the test can
 * {@code kill -9} it: {@code <redis port> <application name> <lock name>} starts a Spring Boot application without
 * a web server, with the console (and so the heartbeat) enabled, takes the lock (renewed by the watchdog) and two
 * permits of the semaphore {@code pool}, sets a count-down latch of the lock's name to 5, leads the role {@value #ROLE}, prints {@code ready <instance id>} and waits to be killed. It ends itself
 * after {@link #LIFETIME}, or as soon as the JVM that started it is gone.
 */
public final class ConsoleInstanceWorker {

	static final Duration LIFETIME = Duration.ofMinutes(3);

	/** The role the worker is elected for, alone. */
	static final String ROLE = "nightly-digest";

	private ConsoleInstanceWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("ConsoleInstanceWorker", LIFETIME);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(WorkerApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.data.redis.port=" + args[0],
					"spring.application.name=" + args[1], "redis-kit.console.enabled=true",
					"redis-kit.console.heartbeat.interval=1s", "redis-kit.lock.watchdog-timeout=6s",
					"redis-kit.lock.semaphore.watchdog-timeout=6s", "redis-kit.lock.leader.roles=" + ROLE)
			.run();
		context.getBean(LockRegistry.class).getLock(args[2]).acquire();
		context.getBean(SemaphoreRegistry.class).getSemaphore("pool", 3).acquire(2, Duration.ofSeconds(30));
		context.getBean(LatchRegistry.class).getCountDownLatch(args[2]).trySetCount(5);
		LeaderElection election = context.getBean(LeaderElections.class).elections().get(0);
		long deadline = System.nanoTime() + LIFETIME.toNanos();
		while (!election.isLeader() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		InstanceRegistry instances = context.getBean(InstanceRegistry.class);
		// The holds in Redis before the test looks: the next scheduled heartbeat would report them a second later.
		instances.beatNow();
		System.out.println("ready " + instances.self().id());
		System.out.flush();
		Thread.sleep(LIFETIME.toMillis());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WorkerApplication {

	}

}
