package io.rediskit.sample;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * The YAML blocks of the README and {@code docs/}, read as Spring Boot reads an {@code application.yml}, for
 * {@link DocumentationSnippetsTests}. A block is bound as it stands unless the line before its fence is a marker
 * a reader sees in the Markdown source and this class understands:
 * <ul>
 * <li>{@code <!-- yaml: excerpt of the application.yml above -->}: a part of the first unmarked block above
 * it in the same file, shown again next to the text that explains it; every property it sets must be set to the
 * same value there, so the two cannot drift apart.</li>
 * <li>{@code <!-- yaml: instead of a part of the application.yml above -->}: an alternative to a part of a
 * complete block above it (a cluster's nodes instead of a host); it binds on its own but is not pasted with the
 * others.</li>
 * <li>{@code <!-- yaml: fails at startup -->}: an example of a configuration that is refused; the application
 * must fail to start, naming one of the block's properties.</li>
 * </ul>
 * Any other marker fails the test, so that a misspelt marker never skips a block.
 */
final class DocumentationYaml {

	static final String EXCERPT = "excerpt of the application.yml above";

	static final String INSTEAD = "instead of a part of the application.yml above";

	static final String FAILS = "fails at startup";

	private static final Set<String> MARKERS = Set.of(EXCERPT, INSTEAD, FAILS);

	private static final Pattern BLOCK = Pattern
		.compile("(?m)^(?:<!-- yaml: (?<marker>[^>]*?) -->\\n)?```ya?ml[ \\t]*\\n(?<body>(?s:.*?))^```");

	/**
	 * Where an application's Redis endpoints are set; the test cannot reach a documented host such as
	 * {@code redis-1:6379}, so these are replaced by its own server (the other properties stay as written).
	 */
	private static final Pattern ENDPOINT = Pattern
		.compile("spring\\.data\\.redis\\.(host|port|url|cluster\\.nodes(\\[\\d+])?|sentinel\\..*)");

	private static final Pattern REDLOCK_NODE = Pattern.compile("redis-kit\\.lock\\.redlock\\.nodes(\\[(\\d+)])?");

	/** Properties of these prefixes are Spring Boot's or ours: a name missing from the metadata is a typo. */
	private static final List<String> CHECKED_PREFIXES = List.of("spring.data.redis.", "management.");

	private DocumentationYaml() {
	}

	/**
	 * One YAML block.
	 * @param file the Markdown file, relative to the repository
	 * @param line the line of its opening fence
	 * @param marker its marker, or {@code null}
	 * @param body the YAML
	 */
	record Block(Path file, int line, @Nullable String marker, String body) {

		String location() {
			return this.file + ":" + this.line;
		}

		boolean bound() {
			return this.marker == null;
		}

		/**
		 * The block as Spring Boot's YAML loader reads it, with origins that name the Markdown file and its lines.
		 * @return one property source per YAML document
		 */
		List<PropertySource<?>> load() throws IOException {
			// Blank lines before the body, so that a value's origin is its line in the Markdown file.
			String padded = "\n".repeat(this.line) + this.body;
			ByteArrayResource resource = new ByteArrayResource(padded.getBytes(StandardCharsets.UTF_8),
					this.file.toString());
			return new YamlPropertySourceLoader().load(location(), resource);
		}

		/** @return every property of the block, by name, with its value as text */
		Map<String, String> properties() throws IOException {
			Map<String, String> properties = new LinkedHashMap<>();
			for (PropertySource<?> source : load()) {
				EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
				for (String name : enumerable.getPropertyNames()) {
					// The source unwraps the origin: this is the value as bound.
					properties.putIfAbsent(name, String.valueOf(enumerable.getProperty(name)));
				}
			}
			return properties;
		}

		@Override
		public String toString() {
			return location() + ((this.marker != null) ? " (" + this.marker + ")" : "");
		}

	}

	/**
	 * @param root the repository
	 * @param file a Markdown file
	 * @return its YAML blocks, in order
	 * @throws IllegalStateException for an unknown marker
	 */
	static List<Block> blocks(Path root, Path file) throws IOException {
		String text = Files.readString(file);
		List<Block> blocks = new ArrayList<>();
		Matcher block = BLOCK.matcher(text);
		while (block.find()) {
			String marker = block.group("marker");
			int fence = block.start("body") - 1;
			int line = (int) text.substring(0, fence).lines().count();
			Path relative = root.relativize(file);
			if (marker != null && !MARKERS.contains(marker)) {
				throw new IllegalStateException(relative + ":" + line + " has the unknown marker '" + marker
						+ "'; the markers are " + MARKERS);
			}
			blocks.add(new Block(relative, line, marker, block.group("body")));
		}
		return blocks;
	}

	/**
	 * @param block an excerpt
	 * @param blocks the blocks of its file
	 * @return the unmarked block it is an excerpt of: the first in the file, above it
	 */
	static Block whole(Block block, List<Block> blocks) {
		return blocks.stream()
			.filter((candidate) -> candidate.bound() && candidate.line() < block.line())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(block.location() + " is marked as an excerpt, but no"
					+ " complete YAML block precedes it in " + block.file()));
	}

	/**
	 * The unmarked blocks of a file pasted into one {@code application.yml}, as a reader of the README does.
	 * @param file the file, relative to the repository
	 * @param blocks its blocks
	 * @return the YAML documents of that file, as Spring Boot reads them
	 * @throws RuntimeException from the YAML parser when the blocks together are no valid YAML (a key twice)
	 */
	static List<PropertySource<?>> pasted(Path file, List<Block> blocks) throws IOException {
		StringBuilder yaml = new StringBuilder();
		blocks.stream().filter(Block::bound).forEach((block) -> yaml.append(block.body()).append('\n'));
		ByteArrayResource resource = new ByteArrayResource(yaml.toString().getBytes(StandardCharsets.UTF_8),
				"the YAML blocks of " + file + " in one application.yml");
		return new YamlPropertySourceLoader().load(file.toString(), resource);
	}

	/**
	 * The property sources an application with these blocks as its configuration would have, highest precedence
	 * first (a later block overrides an earlier one, as a later file does), with the endpoints replaced.
	 * @param blocks the blocks, in document order
	 * @param host the host of the test's server
	 * @param port its port
	 * @param redlockNode the URL of the test's n-th independent server, for Redlock's nodes
	 * @return the sources
	 */
	static List<PropertySource<?>> sources(List<Block> blocks, String host, int port,
			IntFunction<String> redlockNode) throws IOException {
		List<PropertySource<?>> sources = new ArrayList<>();
		for (Block block : blocks) {
			for (PropertySource<?> source : block.load()) {
				Map<String, Object> kept = new LinkedHashMap<>();
				EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
				int nodes = 0;
				for (String name : enumerable.getPropertyNames()) {
					Object value = enumerable.getProperty(name);
					if (ENDPOINT.matcher(name).matches()) {
						continue;
					}
					Matcher node = REDLOCK_NODE.matcher(name);
					if (node.matches()) {
						// A comma-separated list or an element: one independent server of the test's for each.
						if (node.group(2) != null) {
							value = redlockNode.apply(Integer.parseInt(node.group(2)));
						}
						else {
							List<String> urls = new ArrayList<>();
							for (String ignored : String.valueOf(value).split(",")) {
								urls.add(redlockNode.apply(nodes++));
							}
							value = String.join(",", urls);
						}
					}
					kept.put(name, value);
				}
				sources.add(new OriginTrackedMapPropertySource(source.getName(), Collections.unmodifiableMap(kept)));
			}
		}
		Collections.reverse(sources);
		Map<String, Object> endpoint = Map.of("spring.data.redis.host", host, "spring.data.redis.port", port);
		sources.add(0, new OriginTrackedMapPropertySource("the test's redis-server", endpoint));
		return sources;
	}

	/**
	 * @param properties a block's properties
	 * @return those under {@link #CHECKED_PREFIXES} that no configuration metadata on the class path names
	 */
	static List<String> unknown(Map<String, String> properties) throws IOException {
		Set<String> known = knownProperties();
		List<String> unknown = new ArrayList<>();
		for (String name : properties.keySet()) {
			String plain = name.replaceAll("\\[\\d+]$", "");
			if (CHECKED_PREFIXES.stream().anyMatch(plain::startsWith) && !known.contains(plain)
					&& known.stream().noneMatch((map) -> map.endsWith(".*") && plain.startsWith(map.substring(0, map.length() - 1)))) {
				unknown.add(name);
			}
		}
		return unknown;
	}

	private static @Nullable Set<String> known;

	private static synchronized Set<String> knownProperties() throws IOException {
		if (known == null) {
			Set<String> names = new HashSet<>();
			JsonMapper json = JsonMapper.builder().build();
			Enumeration<URL> files = DocumentationYaml.class.getClassLoader()
				.getResources("META-INF/spring-configuration-metadata.json");
			for (URL file : Collections.list(files)) {
				try (InputStream in = file.openStream()) {
					JsonNode metadata = json.readTree(in);
					for (JsonNode property : metadata.path("properties")) {
						names.add(property.path("name").asString());
						// A map of groups (management.endpoint.health.group): any key under it is the map's.
						if (property.path("type").asString().startsWith("java.util.Map<")) {
							names.add(property.path("name").asString() + ".*");
						}
					}
				}
			}
			known = names;
		}
		return known;
	}

}
