package io.rediskit.sample;

import java.time.Duration;

import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Boot way with Docker: a Redis container wired in by {@code @ServiceConnection}. Skipped where no
 * Docker engine runs (as on this project's CI); {@link SampleApplicationTests} uses a local redis-server instead.
 */
@SpringBootTest
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersRedisTests {

	@Container
	@ServiceConnection(name = "redis")
	static final GenericContainer<?> redis = new GenericContainer<>("redis:7.4-alpine").withExposedPorts(6379);

	@Autowired
	LockRegistry lockRegistry;

	@Test
	void locksAgainstTheContainer() throws Exception {
		RedisLock lock = this.lockRegistry.getLock("orders", "container");
		try (Lease lease = lock.acquire(Duration.ofSeconds(1))) {
			assertThat(lease.fencingToken()).isPositive();
			assertThat(lock.isLocked()).isTrue();
		}
		assertThat(lock.isLocked()).isFalse();
	}

}
