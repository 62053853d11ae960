package io.rediskit.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The redis-kit sample. Run it with {@code ./mvnw -pl sample-app -am spring-boot:run}; with no Redis
 * configured and none on localhost:6379 it starts a local redis-server of its own. Scheduling is on for
 * {@link NightlyReport}, a job under {@code @ScheduledLock}; caching is on for {@link ProductPages}, behind
 * redis-kit's cache manager.
 */
@SpringBootApplication
@EnableScheduling
@EnableCaching
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new LocalRedisFallback());
		application.run(args);
	}

}
