package io.rediskit.cache;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;

import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * Cache values as JSON through the application's {@link JsonMapper} (Jackson 3), never Java serialization.
 * <p>
 * A cache does not know the type of what it holds ({@code @Cacheable} reads through {@code Cache.get(key)}), so
 * the JSON names the class of the value and of every value held where the declared type is {@code Object}
 * ({@code {"@class":"com.example.Product",...}}). Only classes that are trusted are ever instantiated from those
 * names: the boxed primitives and {@code String}, {@code java.util}, {@code java.time} and {@code java.math}
 * types, arrays, and the classes of the trusted packages (in Spring Boot, the application's own packages by
 * default). Bytes naming any other class (a gadget chain, a class of another application) fail to read with a
 * {@link SerializationException}, which the cache counts and treats as a miss; so do Java-serialized bytes,
 * which are not JSON.
 * <p>
 * Limits: a value's class must be readable by Jackson (a record, a bean with a default constructor, or
 * annotated for Jackson); a collection made by {@code List.of} is read back as a mutable list of the same content.
 */
public final class CacheJsonSerializer implements RedisSerializer<Object> {

	private static final List<Class<?>> TRUSTED_CLASSES = List.of(String.class, Boolean.class, Character.class,
			Byte.class, Short.class, Integer.class, Long.class, Float.class, Double.class, Number.class,
			BigDecimal.class, BigInteger.class);

	private static final List<String> TRUSTED_JDK_PACKAGES = List.of("java.util.", "java.time.");

	private final ObjectWriter writer;

	private final ObjectReader reader;

	private final List<String> trustedPackages;

	/**
	 * @param mapper the application's mapper; a copy is configured, the mapper itself is left as it is
	 * @param trustedPackages the packages whose classes values may be, such as {@code com.example.catalog}
	 * (sub-packages included)
	 */
	public CacheJsonSerializer(JsonMapper mapper, Collection<String> trustedPackages) {
		Objects.requireNonNull(mapper, "mapper must not be null");
		this.trustedPackages = List.copyOf(trustedPackages);
		BasicPolymorphicTypeValidator.Builder validator = BasicPolymorphicTypeValidator.builder().allowIfSubTypeIsArray();
		TRUSTED_CLASSES.forEach(validator::allowIfSubType);
		TRUSTED_JDK_PACKAGES.forEach(validator::allowIfSubType);
		for (String trusted : this.trustedPackages) {
			if (trusted.isBlank() || trusted.startsWith(".") || trusted.endsWith(".")) {
				throw new IllegalArgumentException("A trusted package must be a package name such as com.example, was '"
						+ trusted + "'");
			}
			validator.allowIfSubType(trusted + ".");
		}
		PolymorphicTypeValidator types = validator.build();
		JsonMapper configured = mapper.rebuild()
			.polymorphicTypeValidator(types)
			.activateDefaultTyping(types, DefaultTyping.JAVA_LANG_OBJECT, JsonTypeInfo.As.PROPERTY)
			.build();
		this.writer = configured.writerFor(Object.class);
		this.reader = configured.readerFor(Object.class);
	}

	/** @return the packages trusted beside the JDK types */
	public List<String> trustedPackages() {
		return new ArrayList<>(this.trustedPackages);
	}

	@Override
	public byte[] serialize(@Nullable Object value) {
		Objects.requireNonNull(value, "A cache stores null values as its own marker, never as JSON");
		try {
			return this.writer.writeValueAsBytes(value);
		}
		catch (JacksonException ex) {
			throw new SerializationException("Cannot write a " + value.getClass().getName() + " as JSON for the cache: "
					+ ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public @Nullable Object deserialize(byte @Nullable [] bytes) {
		if (bytes == null) {
			return null;
		}
		try {
			return this.reader.readValue(bytes);
		}
		catch (JacksonException ex) {
			throw new SerializationException("Cannot read a cached value: " + ex.getOriginalMessage(), ex);
		}
	}

}
