package io.rediskit.autoconfigure.keys;

import java.time.Duration;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.keys.KeysProperties.Report;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.keys.KeyToolsListener;
import io.rediskit.support.Observations;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configures {@link KeyTools} on the application's {@link LettuceConnectionFactory} (the tools need
 * Lettuce's per-node cluster connections), telling every {@link KeyToolsListener} bean of progress and observing
 * every call through the application's {@link Observations}. Off with
 * {@code redis-kit.keys.enabled=false}; backs off when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.keys.enabled", matchIfMissing = true)
@EnableConfigurationProperties(KeysProperties.class)
public final class KeysAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	KeyTools keyTools(LettuceConnectionFactory connectionFactory, ObjectProvider<KeyToolsListener> listeners,
			ObjectProvider<Observations> observations) {
		KeyTools tools = new KeyTools(connectionFactory, listeners.orderedStream().toList());
		tools.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return tools;
	}

	/**
	 * What the big-key report covers and how fast it reads, from {@code redis-kit.keys.report}: read by the
	 * {@code rediskitkeys} endpoint and the console.
	 * @param properties the key-space tool settings
	 * @return the report's options
	 */
	@Bean
	@ConditionalOnMissingBean
	BigKeyOptions redisKitBigKeyOptions(KeysProperties properties) {
		PropertyChecks checks = new PropertyChecks();
		Report report = properties.getReport();
		BigKeyOptions options = checks.spec(report, "redis-kit.keys.report.", () -> new BigKeyOptions(
				new KeyScanOptions(report.getPattern(), null, report.getBatchSize(), report.getKeysPerSecond(),
						Duration.ZERO, true),
				report.getTop(), report.getSamples(), ':'));
		checks.throwIfInvalid();
		return options;
	}

}
