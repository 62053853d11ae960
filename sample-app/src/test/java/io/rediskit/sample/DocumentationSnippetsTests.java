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
 * Every Java snippet of the README and of {@code docs/} that declares a type compiles as pasted, against the
 * starter and what a Spring Boot web application has on its class path (this module's test class path). Left out:
 * fragments (a few statements without a type) and outlines that elide code with a line {@code ...} or an argument
 * {@code , ...)}; the count of the rest is checked so that a change of the extraction cannot make the test pass by
 * finding nothing.
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

	@TempDir
	Path classes;

	@TestFactory
	Stream<DynamicTest> everySnippetThatDeclaresATypeCompiles() throws IOException {
		List<Snippet> snippets = snippets();
		assertThat(snippets).as("snippets declaring a type in README.md and docs/").hasSizeGreaterThan(10);
		return snippets.stream().map((snippet) -> DynamicTest.dynamicTest(snippet.toString(), () -> compile(snippet)));
	}

	private static List<Snippet> snippets() throws IOException {
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
				Matcher type = PUBLIC_TYPE.matcher(code);
				if (!type.find()) {
					type = TYPE.matcher(code);
				}
				if (type.find(0) && !ELISION.matcher(code).find()) {
					int line = (int) text.substring(0, block.start()).lines().count() + 1;
					snippets.add(new Snippet(ROOT.relativize(file) + ":" + line, type.group(2), code));
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
			.map((diagnostic) -> "line " + diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT))
			.toList();
		assertThat(errors).as("javac errors in the snippet at %s", snippet.location()).isEmpty();
		assertThat(compiled).as("snippet at %s compiled", snippet.location()).isTrue();
	}

	record Snippet(String location, String typeName, String code) {

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
