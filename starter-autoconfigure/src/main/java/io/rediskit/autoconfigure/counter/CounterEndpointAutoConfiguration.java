package io.rediskit.autoconfigure.counter;

import io.rediskit.autoconfigure.bitmap.BitmapAutoConfiguration;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.counter.UniqueCounterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitcounter} actuator endpoint when Actuator is present, the counters are on (their
 * properties are a bean) and the endpoint is available (exposed with {@code management.endpoints.web.exposure.include=rediskitcounter}).
 */
@AutoConfiguration(after = { CounterAutoConfiguration.class, BitmapAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(CounterProperties.class)
@ConditionalOnAvailableEndpoint(RedisCounterEndpoint.class)
public final class CounterEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisCounterEndpoint redisCounterEndpoint(ObjectProvider<UniqueCounterRegistry> counters,
			ObjectProvider<BitmapRegistry> bitmaps, CounterProperties properties) {
		return new RedisCounterEndpoint(counters.getIfAvailable(), bitmaps.getIfAvailable(), properties);
	}

}
