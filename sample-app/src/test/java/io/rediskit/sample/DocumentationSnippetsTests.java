package io.rediskit.sample;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import io.rediskit.sample.DocumentationYaml.Block;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.origin.Origin;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.stereotype.Component;
import org.springframework.validation.ObjectError;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every Java snippet of the README and of {@code docs/} compiles, against the starter and what a Spring Boot web
 * application has on its class path (this module's test class path). A snippet that declares a type compiles as
 * pasted. A fragment (statements, or a method) compiles inside a method (or class) that imports redis-kit's packages
 * and declares the beans and domain objects fragments use by name ({@link #FRAGMENT_CONTEXT}), so a renamed method
 * or a changed signature breaks the build as it breaks a reader's paste. Left out: outlines that elide code with a
 * line {@code ...} or an argument {@code , ...)}. The counts are checked so that a change of the extraction cannot
 * make the test pass by finding nothing.
 * <p>
 * Every YAML block binds, in an application that starts against a real {@code redis-server}: each block on its
 * own, then each file's blocks together (a later block overriding an earlier one) with the file's snippets that
 * declare a Spring bean ({@code @Service}, {@code @Configuration}, ...), so that an annotation naming a limiter no
 * block configures fails as it fails a reader. The endpoints a block names ({@code redis-1:6379}) are replaced by
 * the test's servers; the other {@code spring.data.redis.*} and {@code management.*} properties must exist in the
 * configuration metadata. Markers before a block ({@link DocumentationYaml}) say that it is an excerpt of a
 * complete block above it, checked to agree with it, or an example that fails at startup, checked to fail naming
 * its property. A failure names the file and the line of the block.
 */
class DocumentationSnippetsTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\s*\\n(.*?)^```");

	private static final Pattern TYPE = Pattern.compile(
			"(?m)^(?:public\\s+|final\\s+|abstract\\s+)*(class|record|interface|enum|@interface)\\s+(\\w+)");

	/** The file of a public type must carry its name. */
	private static final Pattern PUBLIC_TYPE = Pattern.compile(
			"(?m)^public\\s+(?:final\\s+|abstract\\s+)*(class|record|interface|enum|@interface)\\s+(\\w+)");

	private static final Pattern ELISION = Pattern.compile("(?m)^\\s*\\.\\.\\.\\s*$|, \\.\\.\\.\\)");

	/** What fragments find around them: imports, then the beans and domain objects they use by name. */
	static final String FRAGMENT_IMPORTS = """
			import java.time.*;
			import java.util.*;
			import java.util.concurrent.CompletableFuture;
			import java.util.concurrent.CompletionStage;
			import java.util.concurrent.Executor;

			import io.rediskit.bitmap.*;
			import io.rediskit.bloom.*;
			import io.rediskit.cache.*;
			import io.rediskit.counter.*;
			import io.rediskit.geo.*;
			import io.rediskit.id.*;
			import io.rediskit.keys.*;
			import io.rediskit.latch.*;
			import io.rediskit.leader.*;
			import io.rediskit.lock.*;
			import io.rediskit.queue.*;
			import io.rediskit.rank.*;
			import io.rediskit.recent.*;
			import io.rediskit.ratelimit.*;
			import io.rediskit.support.*;
			import io.rediskit.autoconfigure.lock.ScheduledJobs;
			""";

	static final String FRAGMENT_CONTEXT = """
			LockRegistry lockRegistry;
			ScheduledJobs scheduledJobs;
			RedisLock lock;
			SemaphoreRegistry semaphoreRegistry;
			LatchRegistry latchRegistry;
			ReadWriteLockRegistry readWriteLocks;
			FairLockRegistry fairLocks;
			RateLimiterRegistry rateLimiters;
			BloomFilterRegistry bloomFilterRegistry;
			BloomFilterRegistry filters;
			UniqueCounterRegistry uniqueCounterRegistry;
			BitmapRegistry bitmapRegistry;
			GeoIndexRegistry geoIndexRegistry;
			LeaderboardRegistry leaderboardRegistry;
			RecentItemsRegistry recentItemsRegistry;
			IdGeneratorRegistry idGeneratorRegistry;
			KeyTools keyTools;
			CommandExecutor commandExecutor;
			KeyNaming keyNaming;
			org.springframework.data.redis.connection.RedisConnectionFactory connectionFactory;
			String sku;
			String orderId;
			String tenantId;
			String userId;
			String id;
			Executor executor;
			Order order;
			Store store;
			Exporter exporter;
			Gateway gateway;

			record Order(String id) {
			}

			record Receipt(String id) {
			}

			interface Store {
				void write(Order order, long fencingToken);
			}

			interface Exporter {
				void export(String tenantId);
				CompletionStage<Void> exportAsync(String tenantId, long fencingToken);
			}

			interface Gateway {
				Receipt charge(Order order);
			}
			""";

	private static final Pattern MEMBER = Pattern.compile("^\\s*(?:@|public\\s|private\\s|protected\\s)");

	/** Servers for Redlock's nodes in the docs; the first one is every application's Redis. */
	private static final int REDLOCK_NODES = 5;

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.servers(REDLOCK_NODES);

	/**
	 * One file manager for every compilation: it opens and indexes the class path's jars once, not once per snippet
	 * (most of a snippet's compile time). Each compilation still sees only the class path and its own source.
	 */
	private static final StandardJavaFileManager fileManager = ToolProvider.getSystemJavaCompiler()
		.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);

	@TempDir
	Path classes;

	@AfterAll
	static void closeFileManager() throws IOException {
		fileManager.close();
	}

	@TestFactory
	Stream<DynamicTest> everySnippetThatDeclaresATypeCompiles() throws IOException {
		List<Snippet> snippets = snippets(true);
		assertThat(snippets).as("snippets declaring a type in README.md and docs/").hasSizeGreaterThan(10);
		return snippets.stream().map((snippet) -> DynamicTest.dynamicTest(snippet.toString(), () -> compile(snippet)));
	}

	@TestFactory
	Stream<DynamicTest> everyFragmentCompilesInItsContext() throws IOException {
		List<Snippet> fragments = snippets(false);
		assertThat(fragments).as("fragments in README.md and docs/").hasSizeGreaterThan(10);
		return fragments.stream().map((fragment) -> DynamicTest.dynamicTest(fragment.toString(), () -> {
			boolean member = MEMBER.matcher(fragment.code()).find();
			String body = member ? fragment.code()
					: "void fragment() throws Exception {\n" + fragment.code() + "\n}\n";
			String prefix = FRAGMENT_IMPORTS + "\nclass Fragment {\n" + FRAGMENT_CONTEXT + "\n" + (member ? "" : "void fragment() throws Exception {\n");
			String code = FRAGMENT_IMPORTS + "\nclass Fragment {\n" + FRAGMENT_CONTEXT + "\n" + body + "}\n";
			compile(new Snippet(fragment.location(), "Fragment", code, (int) prefix.lines().count()));
		}));
	}

	@TestFactory
	Stream<DynamicTest> everyYamlBlockBindsInAnApplicationThatStarts() throws IOException {
		List<DynamicTest> tests = new ArrayList<>();
		for (Path file : markdownFiles()) {
			List<Block> blocks = DocumentationYaml.blocks(ROOT, file);
			for (Block block : blocks) {
				if (block.bound() || DocumentationYaml.INSTEAD.equals(block.marker())) {
					tests.add(DynamicTest.dynamicTest(block.toString(),
							() -> starts(block.location(), List.of(block), List.of(), getClass().getClassLoader())));
				}
				else if (DocumentationYaml.EXCERPT.equals(block.marker())) {
					tests.add(DynamicTest.dynamicTest(block.toString(),
							() -> agrees(block, DocumentationYaml.whole(block, blocks))));
				}
				else {
					tests.add(DynamicTest.dynamicTest(block.toString(), () -> failsNamingAProperty(block)));
				}
			}
		}
		assertThat(tests).as("YAML blocks in README.md and docs/").hasSizeGreaterThan(15);
		return tests.stream();
	}

	// A reader pastes the README's YAML into one application.yml: a second redis-kit key would not load.
	@Test
	void theReadmesYamlPastesIntoOneApplicationYml() throws IOException {
		Path readme = ROOT.resolve("README.md");
		List<Block> blocks = DocumentationYaml.blocks(ROOT, readme);
		assertThat(blocks).filteredOn(Block::bound).as("complete YAML blocks of README.md").isNotEmpty();
		assertThatNoException().as("README.md's YAML blocks (but excerpts and alternatives) in one file")
			.isThrownBy(() -> DocumentationYaml.pasted(ROOT.relativize(readme), blocks));
	}

	@TestFactory
	Stream<DynamicTest> eachFilesYamlAndBeansStartTogether() throws IOException {
		List<DynamicTest> tests = new ArrayList<>();
		Map<Path, List<Snippet>> declaringTypes = new LinkedHashMap<>();
		for (Snippet snippet : snippets(true)) {
			Path file = Path.of(snippet.location().replaceAll(":\\d+$", ""));
			declaringTypes.computeIfAbsent(file, (key) -> new ArrayList<>()).add(snippet);
		}
		for (Path file : markdownFiles()) {
			Path relative = ROOT.relativize(file);
			List<Block> bound = DocumentationYaml.blocks(ROOT, file).stream().filter(Block::bound).toList();
			List<Snippet> types = declaringTypes.getOrDefault(relative, List.of());
			if (types.isEmpty() && bound.size() < 2) {
				continue; // nothing the test of each block did not start already
			}
			tests.add(DynamicTest.dynamicTest(relative.toString(), () -> {
				ClassLoader loader = compileTogether(types);
				List<Class<?>> beans = new ArrayList<>();
				for (Snippet snippet : types) {
					Class<?> type = Class.forName(snippet.typeName(), false, loader);
					if (AnnotatedElementUtils.hasAnnotation(type, Component.class)) {
						beans.add(type);
					}
				}
				String what = relative + " (YAML blocks at lines "
						+ bound.stream().map((block) -> String.valueOf(block.line())).toList() + ", beans "
						+ beans.stream().map(Class::getSimpleName).toList() + ")";
				starts(what, bound, beans, loader);
			}));
		}
		assertThat(tests).as("files with YAML and beans").hasSizeGreaterThan(3);
		return tests.stream();
	}

	/** Starts a web application configured by the blocks, with the beans, and stops it. */
	private static void starts(String what, List<Block> blocks, List<Class<?>> beans, ClassLoader loader)
			throws IOException {
		try (ConfigurableApplicationContext context = application(blocks, beans, loader).run()) {
			assertThat(context.isRunning()).as("%s started", what).isTrue();
		}
		catch (RuntimeException ex) {
			throw new AssertionError(what + " does not start: " + messages(ex), ex);
		}
	}

	private static void failsNamingAProperty(Block block) throws IOException {
		Set<String> properties = block.properties().keySet();
		Throwable failure = null;
		try (ConfigurableApplicationContext context = application(List.of(block), List.of(),
				DocumentationSnippetsTests.class.getClassLoader())
			.run()) {
			// started: the assertion below reports it
		}
		catch (RuntimeException ex) {
			failure = ex;
		}
		assertThat(failure).as("%s is marked '%s', but the application started", block.location(), block.marker())
			.isNotNull();
		String messages = messages(failure);
		assertThat(properties).as("%s failed, but naming none of its properties: %s", block.location(), messages)
			.anyMatch(messages::contains);
	}

	private static void agrees(Block excerpt, Block whole) throws IOException {
		Map<String, String> all = whole.properties();
		Map<String, String> differences = new LinkedHashMap<>();
		excerpt.properties().forEach((name, value) -> {
			if (!value.equals(all.get(name))) {
				differences.put(name, value + " (in " + whole.location() + ": " + all.get(name) + ")");
			}
		});
		assertThat(differences).as("%s is marked as an excerpt of %s, but differs from it", excerpt.location(),
				whole.location()).isEmpty();
	}

	private static SpringApplicationBuilder application(List<Block> blocks, List<Class<?>> beans, ClassLoader loader)
			throws IOException {
		for (Block block : blocks) {
			List<String> unknown = DocumentationYaml.unknown(block.properties());
			assertThat(unknown).as("properties of %s that no configuration metadata names", block.location()).isEmpty();
		}
		RedisServerProcess server = redis.server();
		List<PropertySource<?>> sources = DocumentationYaml.sources(blocks, server.host(), server.port(),
				(node) -> redis.server(node % REDLOCK_NODES).uri());
		List<Class<?>> classes = new ArrayList<>();
		classes.add(DocsApplication.class);
		classes.addAll(beans);
		return new SpringApplicationBuilder(classes.toArray(Class<?>[]::new)).web(WebApplicationType.SERVLET)
			.resourceLoader(new DefaultResourceLoader(loader))
			// No application.yml from the class path (the sample's): only the blocks configure the application.
			.properties("spring.config.name=redis-kit-documentation-none", "server.port=0",
					"spring.main.banner-mode=off")
			.initializers((context) -> {
				MutablePropertySources environment = context.getEnvironment().getPropertySources();
				for (int i = sources.size() - 1; i >= 0; i--) {
					environment.addFirst(sources.get(i));
				}
			});
	}

	/** The failure's causes, with what a validation failure found and where (the file and line of the value). */
	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage()).append(" | ");
			if (cause instanceof BindValidationException validation) {
				for (ObjectError error : validation.getValidationErrors().getAllErrors()) {
					messages.append(error.getDefaultMessage()).append(" (").append(Origin.from(error)).append(") | ");
				}
			}
		}
		return messages.toString();
	}

	/** Compiles a file's snippets that declare types together, for an application that uses them. */
	private ClassLoader compileTogether(List<Snippet> snippets) throws IOException {
		if (snippets.isEmpty()) {
			return getClass().getClassLoader();
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		Path out = Files.createTempDirectory(this.classes, "together");
		List<String> options = List.of("-proc:none", "-d", out.toString(), "-classpath",
				System.getProperty("java.class.path"), "-parameters");
		List<Source> sources = snippets.stream()
			.map((snippet) -> new Source(snippet.typeName(), snippet.code()))
			.toList();
		boolean compiled = compiler.getTask(new StringWriter(), fileManager, diagnostics, options, null, sources).call();
		assertThat(compiled).as("the snippets %s compile together: %s", snippets, diagnostics.getDiagnostics())
			.isTrue();
		return new URLClassLoader(new URL[] { out.toUri().toURL() }, getClass().getClassLoader());
	}

	/**
	 * What every documented application has around its snippets: auto-configuration, no component scanning (it
	 * would find the sample), and the {@code JdbcTemplate} the README's fencing example says it needs.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class DocsApplication {

		@Bean
		JdbcTemplate jdbcTemplate() {
			return new JdbcTemplate(new SimpleDriverDataSource());
		}

	}

	static List<Path> markdownFiles() throws IOException {
		List<Path> files = new ArrayList<>();
		files.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		return files;
	}

	private static List<Snippet> snippets(boolean declaringTypes) throws IOException {
		List<Snippet> snippets = new ArrayList<>();
		for (Path file : markdownFiles()) {
			String text = Files.readString(file);
			Matcher block = JAVA_BLOCK.matcher(text);
			while (block.find()) {
				String code = block.group(1);
				if (ELISION.matcher(code).find()) {
					continue;
				}
				String location = ROOT.relativize(file) + ":" + ((int) text.substring(0, block.start()).lines().count() + 1);
				Matcher type = PUBLIC_TYPE.matcher(code);
				if (!type.find()) {
					type = TYPE.matcher(code);
				}
				boolean declaresType = type.find(0);
				if (declaresType && declaringTypes) {
					snippets.add(new Snippet(location, type.group(2), code, 0));
				}
				else if (!declaresType && !declaringTypes) {
					snippets.add(new Snippet(location, "Fragment", code, 0));
				}
			}
		}
		return snippets;
	}

	private void compile(Snippet snippet) throws IOException {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		Path out = Files.createTempDirectory(this.classes, "snippet");
		List<String> options = List.of("-proc:none", "-d", out.toString(), "-classpath",
				System.getProperty("java.class.path"), "-parameters");
		StringWriter output = new StringWriter();
		boolean compiled = compiler
			.getTask(output, fileManager, diagnostics, options, null,
					List.of(new Source(snippet.typeName(), snippet.code())))
			.call();
		List<String> errors = diagnostics.getDiagnostics()
			.stream()
			.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
			.map((diagnostic) -> "line " + (diagnostic.getLineNumber() - snippet.linesBefore()) + " of the snippet: "
					+ diagnostic.getMessage(Locale.ROOT))
			.toList();
		assertThat(errors).as("javac errors in the snippet at %s", snippet.location()).isEmpty();
		assertThat(compiled).as("snippet at %s compiled", snippet.location()).isTrue();
	}

	/**
	 * One snippet to compile.
	 * @param linesBefore lines of context compiled before the snippet's first line
	 */
	record Snippet(String location, String typeName, String code, int linesBefore) {

		@Override
		public String toString() {
			return this.location + " (" + this.typeName + ")";
		}

	}

	static final class Source extends SimpleJavaFileObject {

		private final String code;

		Source(String typeName, String code) {
			super(URI.create("string:///" + typeName + Kind.SOURCE.extension), Kind.SOURCE);
			this.code = code;
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.code;
		}

	}

}
