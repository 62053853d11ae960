package io.rediskit.sample;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java snippet of the README and of {@code docs/} compiles, against the starter and what a Spring Boot web
 * application has on its class path (this module's test class path). A snippet that declares a type compiles as
 * pasted. A fragment (statements, or a method) compiles inside a method (or class) that imports redis-kit's packages
 * and declares the beans and domain objects fragments use by name ({@link #FRAGMENT_CONTEXT}), so a renamed method
 * or a changed signature breaks the build as it breaks a reader's paste. Left out: outlines that elide code with a
 * line {@code ...} or an argument {@code , ...)}. The counts are checked so that a change of the extraction cannot
 * make the test pass by finding nothing.
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
			import io.rediskit.counter.*;
			import io.rediskit.geo.*;
			import io.rediskit.keys.*;
			import io.rediskit.lock.*;
			import io.rediskit.queue.*;
			import io.rediskit.ratelimit.*;
			import io.rediskit.support.*;
			""";

	static final String FRAGMENT_CONTEXT = """
			LockRegistry lockRegistry;
			RedisLock lock;
			RateLimiterRegistry rateLimiters;
			BloomFilterRegistry bloomFilterRegistry;
			BloomFilterRegistry filters;
			UniqueCounterRegistry uniqueCounterRegistry;
			BitmapRegistry bitmapRegistry;
			GeoIndexRegistry geoIndexRegistry;
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

	@TempDir
	Path classes;

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

	private static List<Snippet> snippets(boolean declaringTypes) throws IOException {
		List<Path> files = new ArrayList<>();
		files.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		List<Snippet> snippets = new ArrayList<>();
		for (Path file : files) {
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
			.getTask(output, null, diagnostics, options, null, List.of(new Source(snippet.typeName(), snippet.code())))
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
