package io.rediskit.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Writes result files as indented JSON from maps, lists, strings, numbers and booleans.
 * <p>
 * The result files are small and flat, which a few lines of code serve better than a JSON library in the
 * executable jar. Maps keep their iteration order (pass a {@link java.util.LinkedHashMap} for a stable
 * file); a non-finite number is written as {@code null}.
 */
public final class JsonWriter {

	private JsonWriter() {
	}

	/**
	 * Writes a value to a file, creating its directory if needed.
	 * @param file the file to write
	 * @param value a map, list, string, number, boolean or {@code null}, nested as deep as needed
	 * @throws IOException if the file cannot be written
	 */
	public static void write(Path file, @Nullable Object value) throws IOException {
		Path directory = file.toAbsolutePath().getParent();
		if (directory != null) {
			Files.createDirectories(directory);
		}
		Files.writeString(file, toJson(value) + "\n", StandardCharsets.UTF_8);
	}

	/**
	 * Renders a value as indented JSON.
	 * @param value a map, list, string, number, boolean or {@code null}
	 * @return the JSON text
	 */
	public static String toJson(@Nullable Object value) {
		StringBuilder json = new StringBuilder();
		append(json, value, "");
		return json.toString();
	}

	private static void append(StringBuilder json, @Nullable Object value, String indent) {
		if (value == null) {
			json.append("null");
		}
		else if (value instanceof Map<?, ?> map) {
			appendMembers(json, map.entrySet().iterator(), '{', '}', indent, true);
		}
		else if (value instanceof List<?> list) {
			appendMembers(json, list.iterator(), '[', ']', indent, false);
		}
		else if (value instanceof Double || value instanceof Float) {
			double number = ((Number) value).doubleValue();
			json.append(Double.isFinite(number) ? Double.toString(number) : "null");
		}
		else if (value instanceof Number || value instanceof Boolean) {
			json.append(value);
		}
		else if (value instanceof CharSequence text) {
			appendString(json, text.toString());
		}
		else {
			throw new IllegalArgumentException("Cannot write a " + value.getClass().getName() + " as JSON");
		}
	}

	private static void appendMembers(StringBuilder json, Iterator<?> members, char open, char close, String indent,
			boolean named) {
		if (!members.hasNext()) {
			json.append(open).append(close);
			return;
		}
		String inner = indent + "  ";
		json.append(open);
		while (members.hasNext()) {
			Object member = members.next();
			json.append('\n').append(inner);
			if (named) {
				Map.Entry<?, ?> entry = (Map.Entry<?, ?>) member;
				appendString(json, String.valueOf(entry.getKey()));
				json.append(": ");
				append(json, entry.getValue(), inner);
			}
			else {
				append(json, member, inner);
			}
			if (members.hasNext()) {
				json.append(',');
			}
		}
		json.append('\n').append(indent).append(close);
	}

	private static void appendString(StringBuilder json, String text) {
		json.append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				case '\n' -> json.append("\\n");
				case '\r' -> json.append("\\r");
				case '\t' -> json.append("\\t");
				default -> {
					if (c < 0x20) {
						json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
					}
					else {
						json.append(c);
					}
				}
			}
		}
		json.append('"');
	}

}
