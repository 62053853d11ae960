package io.rediskit.sample;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.RegexPatternTypeFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every name the README and the pages of {@code docs/} write in backticks, outside code blocks, exists, as the
 * snippet tests ({@link DocumentationSnippetsTests}) make the code blocks compile: a renamed class, member, property
 * or script fails the build instead of a reader.
 * <ul>
 * <li>A type (a backticked name starting with a capital, such as {@code RedisLock} or {@code @ScheduledLock}) is
 * declared in this repository, or is another library's, listed in {@code documentation-foreign-names.txt}.</li>
 * <li>A type that is not public in {@code starter-core} or {@code starter-autoconfigure} is named only by
 * {@code docs/architecture.md} (and the history): user pages name what users can use.</li>
 * <li>A member of a redis-kit type ({@code LockRegistry.getJobLock(name)}, {@code LockRegistry.PHASE},
 * {@code ScheduledJobs.ScheduledJob}) is a public method, field or nested type of it.</li>
 * <li>A property ({@code redis-kit.lock.watchdog-timeout}, {@code redis-kit.rate-limit.limiters.login.limit}) is,
 * or is a group or an entry of, a property of {@code docs/configuration-properties.md}, which
 * {@code ConfigurationPropertiesReferenceTests} keeps equal to the configuration metadata.</li>
 * <li>A Lua script ({@code acquire.lua}) is one of {@code META-INF/redis-kit/scripts}.</li>
 * <li>A meter ({@code rediskit.lock.acquire}, {@code rediskit.lock.acquire{result=skipped}}, {@code rediskit.queue.*}),
 * an endpoint or a health contributor ({@code rediskitqueue}) is, or is the group of, one that the Micrometer
 * listeners record when every method is called, or that the sources name as a literal (gauges, endpoint ids).</li>
 * <li>A file or directory of the repository ({@code sample-app/drive-rate-limits.sh}, a test written as its path
 * without {@code .java}, {@code .../} for directories left out, {@code .method} for one of its methods) exists.</li>
 * </ul>
 * Spans that are schematic ({@code redis-kit.<group>.<setting>}) or all capitals (Redis commands, enum constants)
 * are not names to check. A failure names the file and the line.
 */
class DocumentationNamesTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final List<String> MODULES = List.of("starter-core", "starter-autoconfigure", "test-support",
			"sample-app", "benchmarks");

	/** Modules whose non-public types are internal: users see only their public ones. */
	private static final List<String> PRODUCT_MODULES = List.of("starter-core", "starter-autoconfigure");

	/** Pages allowed to name internal types. */
	private static final Set<String> INTERNAL_PAGES = Set.of("docs/architecture.md", "docs/history.md");

	private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```");

	private static final Pattern COMMENT = Pattern.compile("(?s)<!--.*?-->");

	private static final Pattern SPAN = Pattern.compile("`([^`\\n]+)`");

	private static final Pattern DECLARATION = Pattern.compile(
			"(?m)^\\s*((?:public|protected|private|static|final|abstract|sealed|non-sealed|\\s)*)(?:class|interface|enum|record|@interface)\\s+(\\w+)");

	private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+);");

	private static final Pattern TYPE_HEAD = Pattern.compile("^@?([A-Z][A-Za-z0-9]*)((?:\\.[A-Za-z_][A-Za-z0-9_]*)*)");

	private static final Pattern ALL_CAPS = Pattern.compile("^[A-Z][A-Z0-9_]*$");

	private static final Pattern PROPERTY = Pattern.compile("^redis-kit\\.[a-z0-9.\\-\\[\\]<>]+");

	private static final Pattern METER = Pattern.compile("^rediskit[a-z0-9.]*");

	private static final Pattern METER_SUFFIX = Pattern.compile("^\\.[a-z][a-z0-9.\\-]*$");

	private static final Pattern METER_LITERAL = Pattern.compile("\"(rediskit[a-z0-9.]*)\"");

	private static final Pattern LUA = Pattern.compile("\\b([a-z0-9_]+\\.lua)\\b");

	private static final Pattern REFERENCE_ROW = Pattern.compile("(?m)^\\| `(redis-kit\\.[^`]+)`");

	private static final Map<String, List<Declared>> types = new HashMap<>();

	private static final Set<String> foreign = new HashSet<>();

	private static final List<List<String>> properties = new ArrayList<>();

	private static final Set<String> scripts = new HashSet<>();

	private static final Set<String> meters = new TreeSet<>();

	private static final List<String> repositoryPaths = new ArrayList<>();

	private static final List<Span> spans = new ArrayList<>();

	@BeforeAll
	static void read() throws IOException {
		for (String module : MODULES) {
			for (String set : List.of("main", "test")) {
				Path sources = ROOT.resolve(module).resolve("src").resolve(set).resolve("java");
				if (!Files.isDirectory(sources)) {
					continue;
				}
				try (Stream<Path> files = Files.walk(sources)) {
					for (Path file : files.filter((f) -> f.toString().endsWith(".java")).toList()) {
						declare(module, set.equals("main"), file);
						if (set.equals("main") && PRODUCT_MODULES.contains(module)) {
							Matcher literal = METER_LITERAL.matcher(Files.readString(file));
							while (literal.find()) {
								meters.add(literal.group(1).replaceAll("\\.$", ""));
							}
						}
					}
				}
			}
		}
		String names = new ClassPathResource("documentation-foreign-names.txt").getContentAsString(StandardCharsets.UTF_8);
		names.lines().map(String::strip).filter((l) -> !l.isEmpty() && !l.startsWith("#")).forEach(foreign::add);
		Matcher row = REFERENCE_ROW.matcher(Files.readString(ROOT.resolve("docs/configuration-properties.md")));
		while (row.find()) {
			properties.add(List.of(row.group(1).split("\\.")));
		}
		Path scriptRoot = ROOT.resolve("starter-core/src/main/resources/META-INF/redis-kit/scripts");
		try (Stream<Path> files = Files.walk(scriptRoot)) {
			files.filter((f) -> f.toString().endsWith(".lua")).forEach((f) -> scripts.add(f.getFileName().toString()));
		}
		// the lock family's members, which record the lock's meters under their own name (forMember)
		Set<String> members = new TreeSet<>();
		for (List<String> property : properties) {
			if (property.size() == 4 && property.get(1).equals("lock") && property.get(3).equals("watchdog-timeout")) {
				members.add(property.get(2).replace("-", ""));
			}
		}
		meters.addAll(recordedMeters(members));
		try (Stream<Path> all = Files.walk(ROOT)) {
			all.map((path) -> ROOT.relativize(path).toString().replace('\\', '/'))
				.filter((path) -> !path.isEmpty() && !path.startsWith(".git") && !path.contains("/target")
						&& !path.startsWith("target"))
				.forEach(repositoryPaths::add);
		}
		for (Path page : DocumentationSnippetsTests.markdownFiles()) {
			String text = blank(COMMENT, blank(FENCE, Files.readString(page)));
			Matcher span = SPAN.matcher(text);
			while (span.find()) {
				int line = (int) text.substring(0, span.start()).lines().count() + ((span.start() > 0
						&& text.charAt(span.start() - 1) == '\n') ? 1 : 0);
				spans.add(new Span(ROOT.relativize(page).toString().replace('\\', '/'), Math.max(line, 1),
						span.group(1).strip()));
			}
		}
	}

	@Test
	void typesExist() {
		List<String> unknown = new ArrayList<>();
		for (Span span : spans) {
			String type = typeOf(span.text());
			if (type != null && !types.containsKey(type) && !foreign.contains(type)) {
				unknown.add(span + ": " + type);
			}
		}
		assertThat(spans).as("backticked spans in README.md and docs/").hasSizeGreaterThan(1000);
		assertThat(unknown)
			.as("types the documentation names that no module declares; if one is another library's, add it to "
					+ "sample-app/src/test/resources/documentation-foreign-names.txt")
			.isEmpty();
	}

	@Test
	void internalTypesAreNamedOnlyForContributors() {
		List<String> internal = new ArrayList<>();
		for (Span span : spans) {
			String type = typeOf(span.text());
			if (type == null || INTERNAL_PAGES.contains(span.file()) || foreign.contains(type)) {
				continue;
			}
			List<Declared> declared = types.getOrDefault(type, List.of());
			boolean product = declared.stream().anyMatch(Declared::product);
			boolean visible = declared.stream().anyMatch((d) -> d.isPublic() || !d.product());
			if (product && !visible) {
				internal.add(span + ": " + type);
			}
		}
		assertThat(internal).as("internal types named outside docs/architecture.md").isEmpty();
	}

	@Test
	void membersExist() {
		List<String> missing = new ArrayList<>();
		int checked = 0;
		for (Span span : spans) {
			Matcher head = TYPE_HEAD.matcher(span.text());
			if (!head.find() || head.group(2).isEmpty() || typeOf(span.text()) == null
					|| foreign.contains(head.group(1))) {
				continue;
			}
			Class<?> type = load(head.group(1));
			if (type == null) {
				continue;
			}
			for (String member : head.group(2).substring(1).split("\\.")) {
				Class<?> next = member(type, member, INTERNAL_PAGES.contains(span.file()));
				if (next == null) {
					missing.add(span + ": " + type.getSimpleName() + "." + member);
					break;
				}
				checked++;
				if (next == Void.class) {
					break;
				}
				type = next;
			}
		}
		assertThat(checked).as("members checked").isGreaterThan(20);
		assertThat(missing).as("members of redis-kit types the documentation names that do not exist").isEmpty();
	}

	@Test
	void propertiesExist() {
		List<String> missing = new ArrayList<>();
		int checked = 0;
		for (Span span : spans) {
			Matcher property = PROPERTY.matcher(span.text());
			if (!property.find()) {
				continue;
			}
			String name = property.group().replaceAll("\\[[^\\]]*$", "").replaceAll("[.\\[]+$", "");
			if (name.contains("<") && !name.matches("[^<]*(<name>[^<]*)*") || foreign.contains(name)) {
				continue;
			}
			checked++;
			List<String> segments = List.of(name.split("\\."));
			if (properties.stream().noneMatch((reference) -> covers(reference, segments))) {
				missing.add(span + ": " + name);
			}
		}
		assertThat(checked).as("properties checked").isGreaterThan(100);
		assertThat(missing).as("properties the documentation names that docs/configuration-properties.md lacks")
			.isEmpty();
	}

	@Test
	void scriptsExist() {
		List<String> missing = new ArrayList<>();
		for (Span span : spans) {
			Matcher lua = LUA.matcher(span.text());
			while (lua.find()) {
				if (!scripts.contains(lua.group(1))) {
					missing.add(span + ": " + lua.group(1));
				}
			}
		}
		assertThat(missing).as("Lua scripts the documentation names that META-INF/redis-kit/scripts lacks").isEmpty();
	}

	@Test
	void metersEndpointsAndHealthContributorsExist() {
		List<String> missing = new ArrayList<>();
		int checked = 0;
		for (Span span : spans) {
			Matcher meter = METER.matcher(span.text());
			if (!meter.find() || span.text().contains("<")) {
				continue;
			}
			String name = meter.group().replaceAll("\\.+$", "");
			if (name.equals("rediskit")) {
				continue;
			}
			checked++;
			if (!meters.contains(name) && meters.stream().noneMatch((known) -> known.startsWith(name + "."))) {
				missing.add(span + ": " + name);
			}
		}
		assertThat(checked).as("meters, endpoints and health contributors checked").isGreaterThan(100);
		assertThat(missing).as("meters, endpoints or health contributors the documentation names that do not exist")
			.isEmpty();
	}

	/**
	 * A meter written as a suffix after another one on the same line ({@code rediskit.queue.enqueued}, {@code .acked})
	 * is that meter's sibling: {@code rediskit.queue.acked} must exist too.
	 */
	@Test
	void meterSuffixesNameSiblingsThatExist() {
		List<String> missing = new ArrayList<>();
		int checked = 0;
		Span previous = null;
		String meter = null;
		for (Span span : spans) {
			if (previous == null || !previous.file().equals(span.file()) || previous.line() != span.line()) {
				meter = null;
			}
			previous = span;
			Matcher full = METER.matcher(span.text());
			if (full.matches() && span.text().contains(".")) {
				meter = span.text();
				continue;
			}
			if (meter != null && METER_SUFFIX.matcher(span.text()).matches()) {
				String sibling = meter.substring(0, meter.lastIndexOf('.')) + span.text();
				checked++;
				if (!meters.contains(sibling)) {
					missing.add(span + ": " + sibling);
				}
			}
		}
		assertThat(checked).as("meters written as suffixes checked").isGreaterThan(10);
		assertThat(missing).as("meters the documentation names as a suffix of another that do not exist").isEmpty();
	}

	@Test
	void filesExist() throws IOException {
		Set<String> tops = new HashSet<>();
		try (Stream<Path> top = Files.list(ROOT)) {
			top.map((path) -> path.getFileName().toString())
				.filter((name) -> !name.startsWith(".") || name.equals(".ci"))
				.forEach(tops::add);
		}
		List<String> missing = new ArrayList<>();
		int checked = 0;
		for (Span span : spans) {
			String path = span.text().split("\\s")[0].replaceFirst("^\\./", "").replaceAll("[#:].*$", "")
				.replaceAll("/+$", "");
			int slash = path.indexOf('/');
			if (slash < 0 || !tops.contains(path.substring(0, slash)) || path.contains("/target/")
					|| path.matches(".*[*<{].*")) {
				continue;
			}
			checked++;
			String pattern = Pattern.quote(path).replace("/.../", "\\E/(?:.+/)?\\Q");
			Matcher member = Pattern.compile("(.*/[A-Z]\\w*)\\.(\\w+)").matcher(path);
			boolean exists = repositoryPaths.stream()
				.anyMatch((p) -> p.matches(pattern) || p.matches(pattern + "\\.java"));
			if (!exists && member.matches()) {
				String file = Pattern.quote(member.group(1)).replace("/.../", "\\E/(?:.+/)?\\Q") + "\\.java";
				exists = repositoryPaths.stream().filter((p) -> p.matches(file)).anyMatch((p) -> {
					try {
						return Files.readString(ROOT.resolve(p)).contains(member.group(2));
					}
					catch (IOException ex) {
						return false;
					}
				});
			}
			if (!exists) {
				missing.add(span.toString());
			}
		}
		assertThat(checked).as("files checked").isGreaterThan(20);
		assertThat(missing).as("files the documentation names that the repository lacks").isEmpty();
	}

	/**
	 * Whether a property of the reference is the name, or has it as a group: segment by segment, {@code <name>}
	 * standing for any map key and {@code [n]} for any index.
	 */
	private static boolean covers(List<String> reference, List<String> name) {
		if (name.size() > reference.size()) {
			return false;
		}
		for (int i = 0; i < name.size(); i++) {
			String expected = reference.get(i);
			String actual = name.get(i);
			actual = actual.equals(expected) ? actual : actual.replaceFirst("\\[[^\\]]*]$", "");
			boolean same = expected.equals("<name>") ? !actual.isEmpty()
					: expected.endsWith("[n]") ? actual.matches(Pattern.quote(expected.substring(0, expected.length() - 3))
							+ "(\\[(\\d+|n|)])?")
							: expected.equals(actual);
			if (!same) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The meters every public {@code Micrometer*} listener records when each of its methods is called.
	 * @param members the names a method deriving a listener for another member ({@code forMember}) is called with
	 */
	private static Set<String> recordedMeters(Set<String> members) {
		Set<String> names = new TreeSet<>();
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new RegexPatternTypeFilter(Pattern.compile(".*\\.Micrometer\\w+")));
		for (BeanDefinition candidate : scanner.findCandidateComponents("io.rediskit")) {
			try {
				Class<?> listener = Class.forName(candidate.getBeanClassName(), false,
						DocumentationNamesTests.class.getClassLoader());
				if (Modifier.isAbstract(listener.getModifiers()) || !Modifier.isPublic(listener.getModifiers())) {
					continue;
				}
				Constructor<?> constructor = listener.getConstructor(MeterRegistry.class);
				MeterRegistry registry = new SimpleMeterRegistry();
				exercise(constructor.newInstance(registry), true, members);
				registry.getMeters().forEach((m) -> names.add(m.getId().getName()));
			}
			catch (ReflectiveOperationException | LinkageError ex) {
				// a listener without a MeterRegistry constructor: its meters count through the source literals
			}
		}
		assertThat(names).as("meters recorded by the Micrometer listeners").hasSizeGreaterThan(20);
		return names;
	}

	/** Calls every method with plain arguments, each enum constant in turn, and so on a listener one returns. */
	private static void exercise(Object listener, boolean derived, Set<String> members)
			throws IllegalAccessException {
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
			boolean deriving = method.getReturnType() == listener.getClass();
			List<String> words = deriving ? List.copyOf(members) : List.of("x");
			variants = Math.max(variants, words.size());
			for (int variant = 0; variant < variants; variant++) {
				Object[] arguments = new Object[types.length];
				for (int i = 0; i < types.length; i++) {
					arguments[i] = (types[i] == String.class) ? words.get(variant % words.size())
							: argument(types[i], variant);
				}
				try {
					Object result = method.invoke(listener, arguments);
					if (derived && result != null && result.getClass() == listener.getClass() && result != listener) {
						exercise(result, false, members);
					}
				}
				catch (InvocationTargetException | IllegalArgumentException ex) {
					// an argument the method refuses: its meters count through the source literals
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

	private static String typeOf(String text) {
		Matcher head = TYPE_HEAD.matcher(text);
		if (!head.find()) {
			return null;
		}
		String type = head.group(1);
		String rest = text.substring(head.end());
		// "Retry-After" is a header and "No rate limiter named ..." a message, not types
		boolean name = rest.isEmpty() || " -:'".indexOf(rest.charAt(0)) < 0;
		return (!name || ALL_CAPS.matcher(type).matches()) ? null : type;
	}

	private static Class<?> load(String simpleName) {
		for (Declared declared : types.getOrDefault(simpleName, List.of())) {
			if (declared.product() && declared.isPublic() && declared.className() != null) {
				try {
					return Class.forName(declared.className(), false, DocumentationNamesTests.class.getClassLoader());
				}
				catch (ClassNotFoundException | LinkageError ex) {
					// a nested or test-only declaration: not a class to check members of
				}
			}
		}
		return null;
	}

	/**
	 * @param internal whether the page is for contributors, who read non-public members too
	 * @return the type to look further into: a nested type, or {@code Void} once the member is a method or field
	 */
	private static Class<?> member(Class<?> type, String name, boolean internal) {
		if (internal) {
			for (Class<?> declaring = type; declaring != null; declaring = declaring.getSuperclass()) {
				for (Class<?> nested : declaring.getDeclaredClasses()) {
					if (nested.getSimpleName().equals(name)) {
						return nested;
					}
				}
				if (Stream.of(declaring.getDeclaredMethods()).anyMatch((m) -> m.getName().equals(name))
						|| Stream.of(declaring.getDeclaredFields()).anyMatch((f) -> f.getName().equals(name))) {
					return Void.class;
				}
			}
		}
		for (Class<?> nested : type.getClasses()) {
			if (nested.getSimpleName().equals(name)) {
				return nested;
			}
		}
		for (Method method : type.getMethods()) {
			if (method.getName().equals(name)) {
				return Void.class;
			}
		}
		for (Field field : type.getFields()) {
			if (field.getName().equals(name)) {
				return Void.class;
			}
		}
		return null;
	}

	private static void declare(String module, boolean main, Path file) throws IOException {
		String source = Files.readString(file);
		Matcher pkg = PACKAGE.matcher(source);
		String packageName = pkg.find() ? pkg.group(1) : "";
		String topLevel = file.getFileName().toString().replace(".java", "");
		Matcher declaration = DECLARATION.matcher(source);
		while (declaration.find()) {
			String name = declaration.group(2);
			boolean isPublic = declaration.group(1).contains("public");
			String className = name.equals(topLevel) ? packageName + "." + name : null;
			types.computeIfAbsent(name, (n) -> new ArrayList<>())
				.add(new Declared(isPublic, main && PRODUCT_MODULES.contains(module), className));
		}
	}

	/** The text with every match replaced by as many line breaks as it spans, so line numbers stay right. */
	private static String blank(Pattern pattern, String text) {
		return pattern.matcher(text).replaceAll((m) -> "\n".repeat((int) m.group().chars().filter((c) -> c == '\n').count()));
	}

	private record Declared(boolean isPublic, boolean product, String className) {
	}

	private record Span(String file, int line, String text) {

		@Override
		public String toString() {
			return this.file + ":" + this.line + " `" + this.text + "`";
		}

	}

}
