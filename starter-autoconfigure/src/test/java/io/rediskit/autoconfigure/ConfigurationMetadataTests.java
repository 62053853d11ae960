package io.rediskit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata the build generates (the processor's output merged with
 * {@code additional-spring-configuration-metadata.json}), as an IDE reads it from the jar.
 */
class ConfigurationMetadataTests {

	@Test
	void limiterNamesAndSettingsComplete() throws Exception {
		Map<?, ?> metadata = read();
		assertThat(property(metadata, "redis-kit.rate-limit.limiters").get("type"))
			.isEqualTo("java.util.Map<java.lang.String,io.rediskit.autoconfigure.ratelimit.RateLimitProperties$Limiter>");
		Map<?, ?> keys = hint(metadata, "redis-kit.rate-limit.limiters.keys");
		assertThat((String) ((Map<?, ?>) ((List<?>) keys.get("values")).get(0)).get("description"))
			.contains("algorithm, limit, period, burst and failure-policy");
		Map<?, ?> values = hint(metadata, "redis-kit.rate-limit.limiters.values");
		Map<?, ?> provider = (Map<?, ?>) ((List<?>) values.get("providers")).get(0);
		assertThat(provider.get("name")).isEqualTo("handle-as");
		assertThat(((Map<?, ?>) provider.get("parameters")).get("target"))
			.isEqualTo("io.rediskit.autoconfigure.ratelimit.RateLimitProperties$Limiter");
	}

	@Test
	void bothWebSwitchesAreRealPropertiesWithDescriptionsAndDefaults() throws Exception {
		Map<?, ?> metadata = read();
		for (String name : List.of("redis-kit.lock.web.enabled", "redis-kit.rate-limit.web.enabled")) {
			Map<?, ?> property = property(metadata, name);
			assertThat(property.get("type")).isEqualTo("java.lang.Boolean");
			assertThat(property.get("defaultValue")).isEqualTo(true);
			assertThat((String) property.get("description")).startsWith("Whether to answer");
			assertThat((String) property.get("sourceType")).endsWith("$Web");
		}
		assertThat(property(metadata, "redis-kit.rate-limit.check-names").get("defaultValue")).isEqualTo(true);
	}

	@Test
	void sharedDefaultsOfLimitersAndQueuesCompleteWithDescriptionsAndDefaults() throws Exception {
		Map<?, ?> metadata = read();
		Map<String, Object> defaults = new java.util.LinkedHashMap<>();
		defaults.put("redis-kit.rate-limit.algorithm", "gcra");
		defaults.put("redis-kit.rate-limit.failure-policy", "fail-open");
		defaults.put("redis-kit.queue.visibility-timeout", "30s");
		defaults.put("redis-kit.queue.max-deliveries", 10);
		defaults.put("redis-kit.queue.initial-backoff", "1s");
		defaults.put("redis-kit.queue.max-backoff", "1h");
		defaults.put("redis-kit.queue.backoff-multiplier", 2.0);
		defaults.put("redis-kit.queue.backoff-jitter", 0.2);
		defaults.put("redis-kit.queue.dead-letter-retention", "7d");
		defaults.put("redis-kit.queue.dead-letter-max-size", 100000);
		defaults.forEach((name, value) -> {
			Map<?, ?> property = property(metadata, name);
			Object actual = property.get("defaultValue");
			if (value instanceof Number number) {
				assertThat(actual).as(name).isInstanceOf(Number.class);
				assertThat(((Number) actual).doubleValue()).as(name).isEqualTo(number.doubleValue());
			}
			else {
				assertThat(actual).as(name).isEqualTo(value);
			}
			assertThat((String) property.get("description")).as(name).contains("every");
		});
		// The entries' settings say where an unset one comes from.
		Map<?, ?> queueKeys = hint(metadata, "redis-kit.queue.queues.keys");
		assertThat((String) ((Map<?, ?>) ((List<?>) queueKeys.get("values")).get(0)).get("description"))
			.contains("redis-kit.queue.*");
		Map<?, ?> limiterKeys = hint(metadata, "redis-kit.rate-limit.limiters.keys");
		assertThat((String) ((Map<?, ?>) ((List<?>) limiterKeys.get("values")).get(0)).get("description"))
			.contains("redis-kit.rate-limit.*");
	}

	@Test
	void everyMapOfNamedEntriesCompletesItsNamesAndEverySettingOfAnEntry() throws Exception {
		Map<?, ?> metadata = read();
		List<Map<?, ?>> maps = new ArrayList<>();
		for (Object entry : (List<?>) metadata.get("properties")) {
			if (String.valueOf(((Map<?, ?>) entry).get("type")).startsWith("java.util.Map<java.lang.String,io.rediskit.")) {
				maps.add((Map<?, ?>) entry);
			}
		}
		assertThat(maps.stream().map((entry) -> String.valueOf(entry.get("name"))))
			.contains("redis-kit.queue.recurring");
		for (Map<?, ?> map : maps) {
			String name = (String) map.get("name");
			String type = (String) map.get("type");
			String target = type.substring(type.indexOf(',') + 1, type.length() - 1);
			Map<?, ?> provider = (Map<?, ?>) ((List<?>) hint(metadata, name + ".values").get("providers")).get(0);
			assertThat(provider.get("name")).as(name).isEqualTo("handle-as");
			assertThat(((Map<?, ?>) provider.get("parameters")).get("target")).as(name).isEqualTo(target);
			// The name's completion tells every setting an entry takes, nested groups (near-cache.*, groups.*) included.
			String keys = (String) ((Map<?, ?>) ((List<?>) hint(metadata, name + ".keys").get("values")).get(0))
				.get("description");
			for (PropertyDescriptor setting : BeanUtils.getPropertyDescriptors(Class.forName(target))) {
				if (!"class".equals(setting.getName())) {
					assertThat(keys).as(name + ".keys").contains(kebab(setting.getName()));
				}
			}
		}
	}

	private static String kebab(String camel) {
		return camel.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
	}

	/**
	 * Actuator caches a read operation whose only parameter is the asker's {@link SecurityContext} (one answer per
	 * user) when {@code management.endpoint.<id>.cache.time-to-live} is set, but Spring Boot's processor lists that
	 * property only for a read operation without parameters: such an endpoint lists it in
	 * {@code additional-spring-configuration-metadata.json}, so that the IDE completes what works
	 * ({@code EndpointCacheTimeToLiveTests}).
	 */
	@Test
	void everyEndpointActuatorCachesListsItsTimeToLive() throws Exception {
		Map<?, ?> metadata = read();
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {

			@Override
			protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
				return definition.getMetadata().isIndependent();
			}

		};
		scanner.addIncludeFilter(new AnnotationTypeFilter(Endpoint.class));
		List<String> cached = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("io.rediskit")) {
			Class<?> endpoint = Class.forName(candidate.getBeanClassName());
			for (Method method : endpoint.getMethods()) {
				if (method.isAnnotationPresent(ReadOperation.class) && method.getParameterCount() > 0
						&& Arrays.stream(method.getParameterTypes()).allMatch(SecurityContext.class::equals)) {
					String id = endpoint.getAnnotation(Endpoint.class).id();
					cached.add(id);
					Map<?, ?> property = property(metadata, "management.endpoint." + id + ".cache.time-to-live");
					assertThat(property.get("type")).as(id).isEqualTo("java.time.Duration");
					assertThat(property.get("sourceType")).as(id).isEqualTo(endpoint.getName());
				}
			}
		}
		assertThat(cached).contains("rediskitlock", "rediskitleaderboard", "rediskitrecentitems");
	}

	private static Map<?, ?> read() throws Exception {
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			return JsonMapper.builder().build().readValue(in, Map.class);
		}
	}

	private static Map<?, ?> property(Map<?, ?> metadata, String name) {
		return find(metadata, "properties", name);
	}

	private static Map<?, ?> hint(Map<?, ?> metadata, String name) {
		return find(metadata, "hints", name);
	}

	private static Map<?, ?> find(Map<?, ?> metadata, String section, String name) {
		List<?> entries = (List<?>) metadata.get(section);
		assertThat(entries).as(section).isNotNull();
		return entries.stream()
			.map(Map.class::cast)
			.filter((entry) -> name.equals(entry.get("name")))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No " + section + " entry " + name));
	}

}
