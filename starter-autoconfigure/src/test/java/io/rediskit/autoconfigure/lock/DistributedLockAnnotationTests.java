package io.rediskit.autoconfigure.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** {@code @DistributedLock} on real beans against a real redis-server. */
class DistributedLockAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(), "sample.wait=0s")
		.withUserConfiguration(Beans.class);

	@Test
	void methodsRunUnderTheLockAndExcludeEachOther() {
		this.runner.run((context) -> {
			Counter counter = context.getBean(Counter.class);
			assertThat(AopUtils.isAopProxy(counter)).isTrue();
			ExecutorService executor = Executors.newFixedThreadPool(16);
			try {
				List<Future<?>> tasks = new ArrayList<>();
				for (int t = 0; t < 16; t++) {
					tasks.add(executor.submit(() -> {
						for (int i = 0; i < 25; i++) {
							counter.increment("shared");
						}
					}));
				}
				for (Future<?> task : tasks) {
					task.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(redis.server().command("GET", "counter:shared")).isEqualTo("400");
			assertThat(redis.server().command("EXISTS", "rk:lock:{counter:shared}")).isEqualTo(0L);
		});
	}

	@Test
	void aBusyLockFailsFastWithTheLockName() {
		this.runner.run((context) -> {
			Counter counter = context.getBean(Counter.class);
			RedisLock lock = context.getBean(LockRegistry.class).getLock("counter", "busy");
			CountDownLatch held = new CountDownLatch(1);
			CountDownLatch done = new CountDownLatch(1);
			Thread holder = new Thread(() -> {
				lock.lock();
				held.countDown();
				try {
					done.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					lock.unlock();
				}
			});
			holder.start();
			held.await();
			try {
				assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> counter.tryOnce("busy"))
					.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("counter:busy"));
				assertThat(redis.server().command("GET", "counter:busy")).isNull();
			}
			finally {
				done.countDown();
				holder.join();
			}
			counter.tryOnce("busy");
			assertThat(redis.server().command("GET", "counter:busy")).isEqualTo("1");
		});
	}

	@Test
	void aBusyLockRunsTheFallbackOrSkipsAsTheAnnotationSays() {
		this.runner.run((context) -> {
			Counter counter = context.getBean(Counter.class);
			RedisLock lock = context.getBean(LockRegistry.class).getLock("counter", "taken");
			CountDownLatch held = new CountDownLatch(1);
			CountDownLatch done = new CountDownLatch(1);
			Thread holder = new Thread(() -> {
				lock.lock();
				held.countDown();
				try {
					done.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					lock.unlock();
				}
			});
			holder.start();
			held.await();
			try {
				assertThat(counter.readOrFallBack("taken")).isEqualTo("busy: counter:taken");
				assertThat(counter.incrementOrSkip("taken")).isNull();
				assertThat(redis.server().command("GET", "counter:taken")).isNull();
			}
			finally {
				done.countDown();
				holder.join();
			}
			assertThat(counter.readOrFallBack("taken")).isEqualTo("read taken");
			assertThat(counter.incrementOrSkip("taken")).isEqualTo("incremented");
			assertThat(redis.server().command("GET", "counter:taken")).isEqualTo("1");
		});
	}

	@Test
	void skipDoesNotHideAnOutage() {
		this.runner.withPropertyValues("spring.data.redis.port=" + unusedPort(), "spring.data.redis.timeout=500ms")
			.run((context) -> {
				Counter counter = context.getBean(Counter.class);
				assertThatExceptionOfType(LockNotAcquiredException.class)
					.isThrownBy(() -> counter.incrementOrSkip("down"))
					.satisfies((ex) -> assertThat(ex.getCause()).isNotNull());
				assertThat(counter.readOrFallBack("down")).isEqualTo("busy: counter:down");
			});
	}

	private static int unusedPort() {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	@Test
	void nestedCallsOnTheSameLockReenter() {
		this.runner.run((context) -> {
			// The inner call goes through the proxy with a zero wait: it only succeeds by re-entering.
			context.getBean(Outer.class).incrementTwice("nested");
			assertThat(redis.server().command("GET", "counter:nested")).isEqualTo("2");
			assertThat(redis.server().command("EXISTS", "rk:lock:{counter:nested}")).isEqualTo(0L);
		});
	}

	@Test
	void keyValuesAreDataNeverExpressions() {
		this.runner.run((context) -> {
			Counter counter = context.getBean(Counter.class);
			String hostile = "T(java.lang.Runtime).getRuntime().exec('x') #{1+1} {slot}";
			counter.increment(hostile);
			assertThat(redis.server().command("GET", "counter:" + hostile)).isEqualTo("1");
			assertThat(redis.server().command("EXISTS",
					"rk:lock:{counter:T(java.lang.Runtime).getRuntime().exec('x') #%7B1+1%7D %7Bslot%7D}:fence"))
				.isEqualTo(1L);
			counter.increment("k".repeat(10_000));
			@SuppressWarnings("unchecked")
			List<String> keys = (List<String>) redis.server().command("KEYS", "rk:lock:*");
			assertThat(keys).allSatisfy((key) -> assertThat(key).hasSizeLessThan(200));
		});
	}

	@Test
	void nullKeysAreReportedWithTheMethod() {
		this.runner.run((context) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> context.getBean(Counter.class).increment(null))
			.withMessageContaining("evaluated to null")
			.withMessageContaining("Counter.increment"));
	}

	@Test
	void annotationsOnInterfacesAndPlaceholdersWork() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(greeter.greet("ada")).isEqualTo("hello ada");
			assertThat(redis.server().command("EXISTS", "rk:lock:{greet:ada}:fence")).isEqualTo(1L);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Counter counter(StringRedisTemplate redis) {
			return new Counter(redis);
		}

		@Bean
		Outer outer(Counter counter) {
			return new Outer(counter);
		}

		@Bean
		Greeter greeter() {
			return new PoliteGreeter();
		}

	}

	/** Non-atomic read-modify-write in Redis: exact only under mutual exclusion. */
	static class Counter {

		private final StringRedisTemplate redis;

		Counter(StringRedisTemplate redis) {
			this.redis = redis;
		}

		@DistributedLock(name = "counter", key = "#name", waitTime = "30s")
		public void increment(String name) {
			String current = this.redis.opsForValue().get("counter:" + name);
			this.redis.opsForValue().set("counter:" + name, Long.toString((current != null) ? Long.parseLong(current) + 1 : 1));
		}

		@DistributedLock(name = "counter", key = "#p0", waitTime = "${sample.wait}")
		public void tryOnce(String name) {
			increment(name);
		}

		@DistributedLock(name = "counter", key = "#name", waitTime = "0s", fallbackMethod = "busy")
		public String readOrFallBack(String name) {
			return "read " + name;
		}

		private String busy(String name, LockNotAcquiredException ex) {
			return "busy: " + ex.getLockName();
		}

		@DistributedLock(name = "counter", key = "#name", waitTime = "0s",
				onNotAcquired = DistributedLock.OnNotAcquired.SKIP)
		public String incrementOrSkip(String name) {
			increment(name);
			return "incremented";
		}

	}

	static class Outer {

		private final Counter counter;

		Outer(Counter counter) {
			this.counter = counter;
		}

		@DistributedLock(name = "counter", key = "#name")
		public void incrementTwice(String name) {
			this.counter.tryOnce(name);
			this.counter.tryOnce(name);
		}

	}

	interface Greeter {

		@DistributedLock(name = "greet", key = "#a0", leaseTime = "10s")
		String greet(String name);

	}

	static class PoliteGreeter implements Greeter {

		@Override
		public String greet(String name) {
			return "hello " + name;
		}

	}

}
