package io.rediskit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;
import org.springframework.util.unit.DataSize;

/**
 * Writes {@code docs/configuration-properties.md}, the property reference, from the configuration metadata the
 * build generates ({@code META-INF/spring-configuration-metadata.json}: the processor's output, into which it
 * merged {@code additional-spring-configuration-metadata.json}). One table per area, each row a property with its
 * type, default and description.
 * <p>
 * The metadata describes a map of named entries ({@code redis-kit.rate-limit.limiters}) or a list of elements
 * ({@code redis-kit.rate-limit.web.rules}) as one property: an IDE learns the entries' settings from the
 * {@code handle-as} hint or the element type. The reference lists those settings too, one row each
 * ({@code redis-kit.rate-limit.limiters.<name>.limit}): their type and default come from the class (its setters,
 * and the getters of a new instance), their description from the field's Javadoc, read from the source as the
 * annotation processor reads it for the other properties. A map without a hint is expanded from its type, and a
 * nested group inside an entry ({@code redis-kit.cache.caches.<name>.near-cache}) gets its own rows
 * ({@code redis-kit.cache.caches.<name>.near-cache.enabled}).
 */
final class ConfigurationPropertiesReference {

	/** Areas in the order of the README; an area not listed comes after them under its own name. */
	private static final Map<String, String> AREAS = areas();

	private static final String GENERAL = "General";

	private static final String ENDPOINTS = "Actuator endpoints";

	private static final String MAP_OF_OURS = "java.util.Map<java.lang.String,io.rediskit.";

	private static final Pattern PACKAGE = Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+(?=[A-Z])");

	private static final Pattern INLINE_TAG = Pattern.compile("\\{@(?:code|link|linkplain|literal) ([^}]*)}");

	private final Path sources;

	private final Map<String, Map<String, String>> javadoc = new LinkedHashMap<>();

	/**
	 * @param sources the module's {@code src/main/java}, where the Javadoc of map entries' settings is read
	 */
	ConfigurationPropertiesReference(Path sources) {
		this.sources = sources;
	}

	private static Map<String, String> areas() {
		Map<String, String> areas = new LinkedHashMap<>();
		areas.put("lock", "Lock and Redlock");
		areas.put("rate-limit", "Rate limiting");
		areas.put("queue", "Delay queue");
		areas.put("bloom", "Bloom filters");
		areas.put("counter", "Unique counters");
		areas.put("bitmap", "Check-in calendars and packed counters");
		areas.put("geo", "Geo indexes");
		areas.put("keys", "Key-space tools");
		return areas;
	}

	/**
	 * @param metadata the generated metadata
	 * @return the reference, as Markdown
	 */
	String generate(InputStream metadata) throws IOException, ReflectiveOperationException {
		JsonNode root = JsonMapper.builder().build().readTree(metadata);
		Map<String, String> handleAs = new LinkedHashMap<>();
		for (JsonNode hint : root.path("hints")) {
			String name = hint.path("name").asString();
			for (JsonNode provider : hint.path("providers")) {
				if (name.endsWith(".values") && "handle-as".equals(provider.path("name").asString())) {
					handleAs.put(name.substring(0, name.length() - ".values".length()),
							provider.path("parameters").path("target").asString());
				}
			}
		}
		Map<String, List<Row>> sections = new LinkedHashMap<>();
		sections.put(GENERAL, new ArrayList<>());
		AREAS.values().forEach((title) -> sections.put(title, new ArrayList<>()));
		Map<String, List<Row>> others = new TreeMap<>();
		List<Row> endpoints = new ArrayList<>();
		for (JsonNode property : root.path("properties")) {
			String name = property.path("name").asString();
			String type = property.path("type").asString();
			Row row = new Row(name, simple(type), defaultValue(property.get("defaultValue")),
					property.path("description").asString());
			List<Row> section = section(name, sections, others, endpoints);
			section.add(row);
			String entries = handleAs.get(name);
			if (entries != null) {
				section.set(section.size() - 1, row.renamed(name + ".<name>"));
				expand(name + ".<name>", entries, section);
			}
			else if (type.startsWith(MAP_OF_OURS)) {
				// A map without a hint still has entries with settings: the class is in its type.
				section.set(section.size() - 1, row.renamed(name + ".<name>"));
				expand(name + ".<name>", type.substring(MAP_OF_OURS.length() - "io.rediskit.".length(),
						type.length() - 1), section);
			}
			else if (type.startsWith("java.util.List<io.rediskit.")) {
				section.set(section.size() - 1, row.renamed(name + "[n]"));
				expand(name + "[n]", type.substring("java.util.List<".length(), type.length() - 1), section);
			}
		}
		sections.putAll(others);
		sections.put(ENDPOINTS, endpoints);
		return markdown(sections);
	}

	private static List<Row> section(String name, Map<String, List<Row>> sections, Map<String, List<Row>> others,
			List<Row> endpoints) {
		if (name.startsWith("management.")) {
			return endpoints;
		}
		String[] parts = name.split("\\.");
		if (parts.length == 2) {
			return sections.get(GENERAL);
		}
		String title = AREAS.get(parts[1]);
		return (title != null) ? sections.get(title) : others.computeIfAbsent(parts[1], (area) -> new ArrayList<>());
	}

	/** Adds a row for each setting of the entries of a map or the elements of a list. */
	private void expand(String prefix, String className, List<Row> rows)
			throws IOException, ReflectiveOperationException {
		Class<?> type;
		try {
			type = Class.forName(className);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("The metadata names " + className + ", which is not on the class path",
					ex);
		}
		Object defaults = BeanUtils.instantiateClass(type);
		Map<String, String> docs = javadoc(type);
		for (Map.Entry<String, String> field : docs.entrySet()) {
			PropertyDescriptor descriptor = BeanUtils.getPropertyDescriptor(type, field.getKey());
			if (descriptor == null || descriptor.getReadMethod() == null) {
				continue;
			}
			if (descriptor.getWriteMethod() == null) {
				// A nested group (a final field with a getter only), such as the near cache of a cache entry.
				Class<?> nested = descriptor.getPropertyType();
				if (nested.getName().startsWith("io.rediskit.") && !nested.isEnum()) {
					expand(prefix + "." + kebab(field.getKey()), nested.getName(), rows);
				}
				continue;
			}
			Method setter = descriptor.getWriteMethod();
			String typeName = simple(ResolvableType.forMethodParameter(setter, 0).toString());
			Object value = descriptor.getReadMethod().invoke(defaults);
			rows.add(new Row(prefix + "." + kebab(field.getKey()), typeName, defaultValue(value), field.getValue()));
		}
	}

	/** The Javadoc of each instance field of a class, in declaration order, read from its source. */
	private Map<String, String> javadoc(Class<?> type) throws IOException {
		Class<?> outer = type;
		List<String> nesting = new ArrayList<>();
		while (outer.getEnclosingClass() != null) {
			nesting.add(0, outer.getSimpleName());
			outer = outer.getEnclosingClass();
		}
		nesting.add(0, outer.getSimpleName());
		Path source = this.sources.resolve(outer.getName().replace('.', '/') + ".java");
		String key = type.getName();
		if (this.javadoc.containsKey(key)) {
			return this.javadoc.get(key);
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		Map<String, String> docs = new LinkedHashMap<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(null, Locale.ROOT,
				StandardCharsets.UTF_8)) {
			JavacTask task = (JavacTask) compiler.getTask(null, files, null, List.of("-proc:none"), null,
					files.getJavaFileObjects(source));
			Trees trees = Trees.instance(task);
			for (CompilationUnitTree unit : task.parse()) {
				new TreePathScanner<Void, List<String>>() {

					@Override
					public Void visitClass(ClassTree tree, List<String> enclosing) {
						List<String> names = new ArrayList<>(enclosing);
						names.add(tree.getSimpleName().toString());
						if (names.equals(nesting)) {
							for (Tree member : tree.getMembers()) {
								if (member instanceof VariableTree field
										&& !field.getModifiers().getFlags().contains(Modifier.STATIC)) {
									String doc = trees.getDocComment(new TreePath(getCurrentPath(), member));
									docs.put(field.getName().toString(), (doc != null) ? clean(doc) : "");
								}
							}
						}
						return super.visitClass(tree, names);
					}

				}.scan(unit, List.of());
			}
		}
		if (docs.isEmpty()) {
			throw new IllegalStateException("No fields of " + type.getName() + " found in " + source);
		}
		this.javadoc.put(key, docs);
		return docs;
	}

	/** As the processor cleans a field's Javadoc: the text before the block tags, on one line. */
	private static String clean(String doc) {
		StringBuilder text = new StringBuilder();
		for (String line : doc.lines().toList()) {
			if (line.trim().startsWith("@")) {
				break;
			}
			text.append(line.trim()).append(' ');
		}
		Matcher tag = INLINE_TAG.matcher(text.toString().trim());
		return tag.replaceAll((match) -> Matcher.quoteReplacement(match.group(1))).replaceAll("\\s+", " ");
	}

	private static String markdown(Map<String, List<Row>> sections) {
		StringBuilder out = new StringBuilder();
		out.append("# Configuration properties\n\n");
		out.append("<!-- Generated from the configuration metadata by ConfigurationPropertiesReferenceTests "
				+ "(starter-autoconfigure); do not edit. -->\n\n");
		out.append("Every property of the starter, with its type, default and description, as your IDE shows them. "
				+ "How the settings\ninteract, what startup checks and how to replace beans: "
				+ "[configuration.md](configuration.md).\n\n");
		out.append("This page is generated from the configuration metadata of the build, and a test fails when it "
				+ "differs. After changing\na property, regenerate it:\n\n");
		out.append("```shell\n").append(ConfigurationPropertiesReferenceTests.REGENERATE).append("\n```\n\n");
		out.append("A map of named entries, such as `redis-kit.rate-limit.limiters.<name>`, lists the settings of "
				+ "each entry; a list, such as\n`redis-kit.rate-limit.web.rules[n]`, those of each element. Durations "
				+ "are written `30s`, `500ms`, `2m`, `7d` or ISO-8601\n(`PT30S`).\n");
		sections.forEach((title, rows) -> {
			if (rows.isEmpty()) {
				return;
			}
			out.append("\n## ").append(title).append("\n\n");
			out.append("| Property | Type | Default | Description |\n|---|---|---|---|\n");
			for (Row row : rows) {
				out.append("| `").append(row.name()).append("` | `").append(row.type()).append("` | ")
					.append((row.defaultValue() != null) ? "`" + row.defaultValue() + "`" : "")
					.append(" | ").append(escape(row.description())).append(" |\n");
			}
		});
		return out.toString();
	}

	/** Text in a table cell: no column break, no emphasis, no HTML. */
	private static String escape(String text) {
		return text.replace("\\", "\\\\")
			.replace("|", "\\|")
			.replace("*", "\\*")
			.replace("_", "\\_")
			.replace("<", "&lt;");
	}

	private static @Nullable String defaultValue(@Nullable Object value) {
		if (value == null || (value instanceof JsonNode node && node.isNull())) {
			return null;
		}
		if (value instanceof JsonNode node) {
			if (node.isArray()) {
				List<String> elements = new ArrayList<>();
				node.forEach((element) -> elements.add(element.asString()));
				return elements.isEmpty() ? null : String.join(",", elements);
			}
			return node.asString();
		}
		if (value instanceof Collection<?> collection) {
			return collection.isEmpty() ? null : collection.toString();
		}
		if (value instanceof Map<?, ?> map) {
			return map.isEmpty() ? null : map.toString();
		}
		if (value instanceof Duration duration) {
			return duration(duration);
		}
		if (value instanceof DataSize size) {
			return dataSize(size);
		}
		if (value instanceof Enum<?> constant) {
			return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
		}
		return String.valueOf(value);
	}

	private static String duration(Duration duration) {
		Map<String, ChronoUnit> units = new LinkedHashMap<>();
		units.put("d", ChronoUnit.DAYS);
		units.put("h", ChronoUnit.HOURS);
		units.put("m", ChronoUnit.MINUTES);
		units.put("s", ChronoUnit.SECONDS);
		for (Map.Entry<String, ChronoUnit> unit : units.entrySet()) {
			Duration one = unit.getValue().getDuration();
			if (!duration.isZero() && duration.toNanos() % one.toNanos() == 0) {
				return duration.toNanos() / one.toNanos() + unit.getKey();
			}
		}
		return duration.toMillis() + "ms";
	}

	private static String dataSize(DataSize size) {
		long bytes = size.toBytes();
		String[] units = { "TB", "GB", "MB", "KB" };
		for (int i = 0; i < units.length; i++) {
			long unit = 1L << (10 * (units.length - i));
			if (bytes != 0 && bytes % unit == 0) {
				return bytes / unit + units[i];
			}
		}
		return bytes + "B";
	}

	/** {@code java.util.Map<java.lang.String,a.b.C$D>} as {@code Map<String, D>}. */
	private static String simple(String type) {
		String simple = PACKAGE.matcher(type).replaceAll("").replaceAll("\\w+\\$", "").replace(",", ", ");
		return switch (simple) {
			case "int" -> "Integer";
			case "long" -> "Long";
			case "double" -> "Double";
			case "boolean" -> "Boolean";
			default -> simple;
		};
	}

	private static String kebab(String field) {
		return field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	/** A row of a table. */
	record Row(String name, String type, @Nullable String defaultValue, String description) {

		Row renamed(String newName) {
			return new Row(newName, this.type, this.defaultValue, this.description);
		}

	}

	/**
	 * @param file the reference as committed
	 * @param generated the reference as the metadata gives it
	 * @return the lines that differ, each marked {@code -} (committed only) or {@code +} (generated only)
	 */
	static List<String> differences(Path file, String generated) throws IOException {
		List<String> committed = Files.exists(file) ? Files.readAllLines(file) : List.of();
		List<String> wanted = generated.lines().toList();
		List<String> differences = new ArrayList<>();
		committed.stream().filter((line) -> !wanted.contains(line)).forEach((line) -> differences.add("- " + line));
		wanted.stream().filter((line) -> !committed.contains(line)).forEach((line) -> differences.add("+ " + line));
		if (differences.isEmpty() && !committed.equals(wanted)) {
			differences.add("(the same lines in another order)");
		}
		return differences;
	}

}
