package io.rediskit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.core.type.filter.RegexPatternTypeFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one naming scheme ({@code docs/architecture.md}, "Names"): a user who knows one name of a feature can derive
 * the others. The project is {@code redis-kit} where Boot wants kebab-case (properties) and {@code rediskit}
 * where a name has no separator of its own (meter prefix, endpoint ids, health contributors); a feature is its
 * property group, {@code redis-kit.<group>}, written without its dashes where it is one word of another name:
 * meters {@code rediskit.<group>.<thing>}, the endpoint and the health contributor {@code rediskit<group>}. This
 * test fails when a new property group, endpoint, health contributor or meter breaks the scheme.
 */
class NamingSchemeTests {

	/** A group named after how Redis stores it rather than what the user does with it. */
	private static final Set<String> DATA_STRUCTURES = Set.of("bitmap", "bitmaps", "bitfield", "hyperloglog", "hll",
			"zset", "sorted-set", "rank", "list", "lists", "hash", "set", "stream", "string", "recent", "pubsub");

	private static final Pattern KEBAB = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");

	private static final Pattern METER_LITERAL = Pattern.compile("\"(rediskit\\.[^\"]*)\"");

	@Test
	void propertiesAreKebabCaseUnderAFeatureGroup() throws IOException {
		List<String> names = metadataNames("properties").stream().filter((name) -> name.startsWith("redis-kit."))
			.toList();
		assertThat(names).isNotEmpty();
		for (String name : names) {
			String[] segments = name.substring("redis-kit.".length()).split("\\.");
			for (String segment : segments) {
				assertThat(segment).as("a segment of %s", name).matches(KEBAB);
			}
			String group = segments[0];
			assertThat(RedisKitPropertyNames.GROUPS.contains(group)
					|| RedisKitPropertyNames.OWN.contains(name.substring("redis-kit.".length())))
				.as("%s: its group is in RedisKitPropertyNames.GROUPS", name).isTrue();
			assertThat(name).as("a switch is <thing>.enabled, not <thing>-enabled").doesNotEndWith("-enabled");
		}
		for (String group : RedisKitPropertyNames.GROUPS) {
			assertThat(DATA_STRUCTURES).as("group %s names a feature, not a data structure", group)
				.doesNotContain(group);
		}
	}

	@Test
	void endpointIdsAreRediskitAndTheirGroup() throws IOException {
		Set<String> ids = new TreeSet<>();
		for (BeanDefinition candidate : scan(new AnnotationTypeFilter(Endpoint.class))) {
			Endpoint endpoint = load(candidate).getAnnotation(Endpoint.class);
			ids.add(endpoint.id());
		}
		assertThat(ids).isNotEmpty();
		for (String id : ids) {
			assertThat(id).as("endpoint %s", id).isIn(schemeIds());
		}
		Set<String> inMetadata = metadataNames("groups").stream()
			.filter((name) -> name.startsWith("management.endpoint."))
			.map((name) -> name.substring("management.endpoint.".length()))
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(inMetadata).as("endpoints in the metadata").isEqualTo(ids);
	}

	@Test
	void healthContributorsAreNamedLikeTheEndpointOfTheirGroup() throws Exception {
		Set<String> contributors = new TreeSet<>();
		for (Class<?> configuration : autoConfigurations()) {
			List<Method> healthBeans = healthBeans(configuration);
			if (healthBeans.isEmpty()) {
				continue;
			}
			ConditionalOnEnabledHealthIndicator enabled = configuration
				.getAnnotation(ConditionalOnEnabledHealthIndicator.class);
			assertThat(enabled).as("%s has @ConditionalOnEnabledHealthIndicator", configuration.getName())
				.isNotNull();
			for (Method bean : healthBeans) {
				String[] declared = bean.getAnnotation(Bean.class).name();
				String beanName = (declared.length > 0) ? declared[0] : bean.getName();
				assertThat(beanName).as("%s.%s", configuration.getSimpleName(), bean.getName())
					.endsWith("HealthIndicator");
				String contributor = beanName.substring(0, beanName.length() - "HealthIndicator".length());
				assertThat(contributor).as("health contributor of %s", configuration.getSimpleName())
					.isIn(schemeIds())
					.isEqualTo(enabled.value());
				ConditionalOnMissingBean missing = bean.getAnnotation(ConditionalOnMissingBean.class);
				if (missing != null && missing.name().length > 0) {
					assertThat(missing.name()).containsExactly(beanName);
				}
				contributors.add(contributor);
			}
		}
		assertThat(contributors).isNotEmpty();
	}

	@Test
	void metersAreRediskitDotTheirGroupDotWhatTheyCount() throws Exception {
		Set<String> names = new TreeSet<>();
		for (BeanDefinition candidate : scan(new RegexPatternTypeFilter(Pattern.compile(".*\\.Micrometer\\w+")))) {
			Class<?> listener = load(candidate);
			if (Modifier.isAbstract(listener.getModifiers()) || !Modifier.isPublic(listener.getModifiers())) {
				continue;
			}
			MeterRegistry registry = new SimpleMeterRegistry();
			Constructor<?> constructor = listener.getConstructor(MeterRegistry.class);
			exercise(constructor.newInstance(registry), true);
			registry.getMeters().stream().map((meter) -> meter.getId().getName()).forEach(names::add);
		}
		assertThat(names).as("meters recorded by the Micrometer listeners").hasSizeGreaterThan(20);
		for (String name : names) {
			assertThat(name.split("\\.")).as("meter %s names what it counts after its group", name).hasSizeGreaterThan(2);
		}
		try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
			for (Path source : sources.filter((path) -> path.toString().endsWith(".java")).toList()) {
				Matcher literal = METER_LITERAL.matcher(Files.readString(source, StandardCharsets.UTF_8));
				while (literal.find()) {
					String name = literal.group(1);
					if (!name.equals("rediskit.")) { // the prefix of every meter, such as the console's
						names.add(name.endsWith(".") ? name.substring(0, name.length() - 1) : name);
					}
				}
			}
		}
		Set<String> tokens = tokens();
		for (String name : names) {
			assertThat(name).as("meter %s", name).matches("rediskit(\\.[a-z0-9]+)+");
			assertThat(name.split("\\.")[1]).as("meter %s: the word after rediskit is its group", name).isIn(tokens);
		}
	}

	/**
	 * Calls every listener method with plain arguments, each enum constant in turn, ignoring what they throw; and
	 * so once more on a listener of the same class that a method returns ({@code forKind}, {@code forMember}).
	 */
	private static void exercise(Object listener, boolean derived) throws IllegalAccessException {
		for (Method method : listener.getClass().getMethods()) {
			if (method.getDeclaringClass() == Object.class || Modifier.isStatic(method.getModifiers())) {
				continue;
			}
			Class<?>[] types = method.getParameterTypes();
			int variants = 1;
			for (Class<?> type : types) {
				if (type.isEnum()) {
					variants = Math.max(variants, type.getEnumConstants().length);
				}
			}
			for (int variant = 0; variant < variants; variant++) {
				Object[] arguments = new Object[types.length];
				for (int i = 0; i < types.length; i++) {
					arguments[i] = argument(types[i], variant);
				}
				try {
					Object result = method.invoke(listener, arguments);
					if (derived && result != null && result.getClass() == listener.getClass() && result != listener) {
						exercise(result, false);
					}
				}
				catch (InvocationTargetException | IllegalArgumentException ex) {
					// an argument the method refuses: its meters are checked through the source literals
				}
			}
		}
	}

	private static Object argument(Class<?> type, int variant) {
		if (type == String.class) {
			return "x";
		}
		if (type == Duration.class) {
			return Duration.ofMillis(1);
		}
		if (type == Instant.class) {
			return Instant.EPOCH;
		}
		if (type == long.class || type == Long.class) {
			return 1L;
		}
		if (type == int.class || type == Integer.class) {
			return 1;
		}
		if (type == double.class || type == Double.class) {
			return 1.0;
		}
		if (type == boolean.class || type == Boolean.class) {
			return variant % 2 == 0;
		}
		if (type.isEnum()) {
			Object[] constants = type.getEnumConstants();
			return constants[variant % constants.length];
		}
		if (Throwable.class.isAssignableFrom(type)) {
			return new RuntimeException("x");
		}
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (type == List.class || type == Collection.class) {
			return List.of();
		}
		if (type == Set.class) {
			return Set.of();
		}
		if (type == Map.class) {
			return Map.of();
		}
		return null;
	}

	/** The feature tokens: each group, and the groups of {@link RedisKitProperties} itself, without dashes. */
	private static Set<String> tokens() {
		Set<String> tokens = new TreeSet<>();
		RedisKitPropertyNames.GROUPS.forEach((group) -> tokens.add(group.replace("-", "")));
		RedisKitPropertyNames.OWN.stream()
			.filter((own) -> own.contains("."))
			.forEach((own) -> tokens.add(own.substring(0, own.indexOf('.')).replace("-", "")));
		return tokens;
	}

	/** The names an endpoint or health contributor may take: {@code rediskit} and a feature token. */
	private static Set<String> schemeIds() {
		return tokens().stream().map((token) -> "rediskit" + token).collect(Collectors.toSet());
	}

	private static List<Method> healthBeans(Class<?> configuration) {
		List<Method> beans = new ArrayList<>();
		List<Class<?>> classes = new ArrayList<>(List.of(configuration));
		classes.addAll(List.of(configuration.getDeclaredClasses()));
		for (Class<?> type : classes) {
			Method[] methods;
			try {
				methods = type.getDeclaredMethods();
			}
			catch (LinkageError ex) {
				continue; // an optional dependency absent from this test's class path: no health contributor
			}
			for (Method method : methods) {
				if (method.isAnnotationPresent(Bean.class)
						&& HealthContributor.class.isAssignableFrom(method.getReturnType())) {
					beans.add(method);
				}
			}
		}
		return beans;
	}

	private static List<Class<?>> autoConfigurations() throws IOException, ClassNotFoundException {
		List<Class<?>> classes = new ArrayList<>();
		String imports = new ClassPathResource(
				"META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")
			.getContentAsString(StandardCharsets.UTF_8);
		for (String line : imports.lines().map(String::strip).toList()) {
			if (!line.isEmpty() && !line.startsWith("#")) {
				classes.add(Class.forName(line, false, NamingSchemeTests.class.getClassLoader()));
			}
		}
		assertThat(classes).isNotEmpty();
		return classes;
	}

	private static Set<BeanDefinition> scan(org.springframework.core.type.filter.TypeFilter filter) {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {

			@Override
			protected boolean isCandidateComponent(
					org.springframework.beans.factory.annotation.AnnotatedBeanDefinition definition) {
				return definition.getMetadata().isIndependent();
			}

		};
		scanner.addIncludeFilter(filter);
		return scanner.findCandidateComponents("io.rediskit.autoconfigure");
	}

	private static Class<?> load(BeanDefinition candidate) {
		try {
			return Class.forName(candidate.getBeanClassName(), false, NamingSchemeTests.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> metadataNames(String section) throws IOException {
		Map<?, ?> metadata;
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			metadata = JsonMapper.builder().build().readValue(in, Map.class);
		}
		return ((List<?>) metadata.get(section)).stream()
			.map((entry) -> (String) ((Map<?, ?>) entry).get("name"))
			.toList();
	}

}
