package io.rediskit.support;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The configured specs of an area, as a registry is given them: the spec of a name (asked on every {@code get}, so
 * cheap, and its answer may change over time) and the names configured, so that a name that names nothing is told
 * the closest configured one ({@link ClosestName}). A lambda, such as {@code (name) -> null} for an area configured
 * in code only, gives specs and no names: its unknown names get no suggestion.
 *
 * @param <S> the spec type
 */
@FunctionalInterface
public interface ConfiguredSpecs<S> extends Function<String, @Nullable S> {

	/**
	 * The names configured now, asked only when a name names nothing: never names created in code, which may be
	 * data the application received.
	 * @return the names, none unless a subtype says
	 */
	default Collection<String> names() {
		return Set.of();
	}

	/**
	 * Specs built from configured entries, anew on each lookup, so that a configuration refresh that replaces the
	 * entries applies to the next lookup.
	 * @param <E> the entries' settings
	 * @param <S> the spec type
	 * @param entries the entries by name, read on each call
	 * @param toSpec an entry's spec
	 * @return the spec of a configured name, {@code null} for another name; the entries' names
	 */
	static <E, S> ConfiguredSpecs<S> of(Supplier<? extends Map<String, E>> entries,
			Function<? super E, ? extends S> toSpec) {
		Objects.requireNonNull(entries, "entries must not be null");
		Objects.requireNonNull(toSpec, "toSpec must not be null");
		return new ConfiguredSpecs<>() {

			@Override
			public @Nullable S apply(String name) {
				E entry = entries.get().get(name);
				return (entry != null) ? toSpec.apply(entry) : null;
			}

			@Override
			public Collection<String> names() {
				return Set.copyOf(entries.get().keySet());
			}

		};
	}

}
