package io.rediskit.support;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

/**
 * The handles of one area by name, each with its one spec: what every registry that hands out handles by name
 * (rate limiters, queues, Bloom filters, unique counters, check-in calendars, packed counters, geo indexes)
 * keeps, and the one rule for their specs, so that the areas cannot drift apart.
 * <p>
 * <b>The rule: one name, one spec.</b> A name gets its spec from the configuration or from code, and a second,
 * different spec for it is refused with {@link SpecConflictException}, which names both specs and what differs.
 * <ul>
 * <li>{@link #create(String, Object) create} with the spec the name already has (configured, or passed to an
 * earlier {@code create}) returns the same handle: creating is idempotent, so a bean may call it for a
 * configured name, with the configured spec.</li>
 * <li>{@code create} with another spec than the name's configured one, or than an earlier {@code create}'s,
 * throws; nothing changes.</li>
 * <li>{@link #get(String) get} applies a changed configuration (a refresh that rebinds the properties) to a
 * name whose spec came from the configuration: that is a reload, not a second spec. A name created in code
 * with a spec the configuration did not have, and configured differently later, throws on {@code get}.</li>
 * <li>{@link #update(String, Object) update} changes a name's spec on purpose, where an area offers it (the
 * rate limiter): the change holds until the configuration of that name changes.</li>
 * </ul>
 * Specs are compared with {@code equals}; they are records. A name that names nothing fails {@code get} with the
 * configured name closest to it, if one is close enough to be a typo ({@link ClosestName}); names created in code
 * are never suggested.
 *
 * @param <S> the spec type
 * @param <H> the handle type
 */
public final class NamedSpecs<S, H> {

	private final String kind;

	private final String capitalisedKind;

	private final @Nullable String property;

	private final ConfiguredSpecs<S> configuredSpecs;

	private final BiFunction<String, S, H> factory;

	private final BiFunction<H, S, H> respec;

	private final ConcurrentMap<String, Entry<S, H>> entries = new ConcurrentHashMap<>();

	/**
	 * @param kind what the handles are, as written inside a sentence, such as {@code geo index} or
	 * {@code Bloom filter}
	 * @param property the configuration's map of specs by name, such as {@code redis-kit.geo.indexes};
	 * {@code null} for an area configured in code only
	 * @param configuredSpecs the configured spec of a name, or {@code null}; asked on every {@link #get} and
	 * {@link #create}, so it must be cheap, and its answer may change over time; its names are what an unknown
	 * name's error suggests the closest of
	 * @param factory makes the handle of a name with a spec
	 * @param respec gives a handle a changed spec: the same handle changed in place, or a new one in its stead
	 */
	public NamedSpecs(String kind, @Nullable String property, ConfiguredSpecs<S> configuredSpecs,
			BiFunction<String, S, H> factory, BiFunction<H, S, H> respec) {
		this.kind = Objects.requireNonNull(kind, "kind must not be null");
		this.capitalisedKind = kind.isEmpty() ? kind : Character.toUpperCase(kind.charAt(0)) + kind.substring(1);
		this.property = property;
		this.configuredSpecs = Objects.requireNonNull(configuredSpecs, "configuredSpecs must not be null");
		this.factory = Objects.requireNonNull(factory, "factory must not be null");
		this.respec = Objects.requireNonNull(respec, "respec must not be null");
	}

	/**
	 * The handle of a name, with a changed configuration applied.
	 * @param name a configured name, or one passed to {@link #create}
	 * @return the handle
	 * @throws IllegalArgumentException if no handle has the name
	 * @throws SpecConflictException if the name was created in code with a spec its configuration now differs
	 * from
	 */
	public H get(String name) {
		Objects.requireNonNull(name, "name must not be null");
		S configured = this.configuredSpecs.apply(name);
		Entry<S, H> entry = this.entries.get(name);
		if (entry == null) {
			if (configured == null) {
				// Only configured names are suggested: one created in code may be data the application received.
				String unknown = "No " + this.kind + " named '" + name + "'"
						+ ClosestName.didYouMean(name, this.configuredSpecs.names());
				// Advice to configure a name no property can hold (a '.' splits the path) would not work.
				throw new IllegalArgumentException(!Names.isValid(name)
						? unknown + ", and none can be: names are " + Names.RULE
						: unknown + ": " + ((this.property != null) ? "configure " + this.property + "." + name + " or "
								: "") + "create it in code first");
			}
			entry = this.entries.computeIfAbsent(Names.requireValid(this.capitalisedKind, name),
					(key) -> new Entry<>(this.factory.apply(key, configured), configured, configured, false));
		}
		if (configured != null && !configured.equals(entry.configured())) {
			entry = this.entries.compute(name, (key, existing) -> reconfigure(key, Objects.requireNonNull(existing),
					configured));
		}
		return entry.handle();
	}

	/**
	 * The handle of a name, made with a spec if the name has none yet.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its spec
	 * @return the handle: the existing one if the name already has this spec
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured with, or was created with, another spec
	 */
	public H create(String name, S spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		Names.requireValid(this.capitalisedKind, name);
		S configured = this.configuredSpecs.apply(name);
		if (configured != null && !configured.equals(spec)) {
			throw new SpecConflictException(this.capitalisedKind, name, "configured under " + this.property + "." + name,
					configured, "passed to create", spec, "Use get(\"" + name + "\") for the configured one, pass"
							+ " the configured spec, or give the spec in code another name (or change or remove "
							+ this.property + "." + name + ")");
		}
		return this.entries.compute(name, (key, existing) -> {
			if (existing == null) {
				// Created with the configured spec, the name follows its configuration, reloads included.
				return new Entry<>(this.factory.apply(key, spec), spec, configured, configured == null);
			}
			if (existing.spec().equals(spec)) {
				return existing;
			}
			throw new SpecConflictException(this.capitalisedKind, name,
					existing.inCode() ? "created in code before," : "configured under " + this.property + "." + name + ",",
					existing.spec(), "passed to create now", spec, "A name keeps one spec while the application runs:"
							+ " create it once and share the handle, or give the other spec another name");
		}).handle();
	}

	/**
	 * Gives a name a new spec on purpose: the handle of an area whose handles can change their spec keeps it
	 * until the configuration of the name changes.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its new spec
	 * @return the handle
	 * @throws IllegalArgumentException if the name is not valid
	 */
	public H update(String name, S spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		Names.requireValid(this.capitalisedKind, name);
		return this.entries.compute(name, (key, existing) -> {
			if (existing == null) {
				S configured = this.configuredSpecs.apply(key);
				return new Entry<>(this.factory.apply(key, spec), spec, configured, configured == null);
			}
			return existing.spec().equals(spec) ? existing
					: new Entry<>(this.respec.apply(existing.handle(), spec), spec, existing.configured(), existing.inCode());
		}).handle();
	}

	/** @return the names that have a handle so far, sorted */
	public Set<String> names() {
		return new TreeSet<>(this.entries.keySet());
	}

	/** @return the handles so far */
	public List<H> handles() {
		return this.entries.values().stream().map(Entry::handle).toList();
	}

	/** The configuration of a known name changed (or appeared) since it was last seen. */
	private Entry<S, H> reconfigure(String name, Entry<S, H> existing, S configured) {
		if (configured.equals(existing.configured())) {
			return existing;
		}
		if (!existing.inCode()) {
			return configured.equals(existing.spec()) ? new Entry<>(existing.handle(), configured, configured, false)
					: new Entry<>(this.respec.apply(existing.handle(), configured), configured, configured, false);
		}
		if (configured.equals(existing.spec())) {
			return new Entry<>(existing.handle(), existing.spec(), configured, true);
		}
		throw new SpecConflictException(this.capitalisedKind, name, "created in code", existing.spec(),
				"configured under " + this.property + "." + name + " since", configured, "Remove or correct "
						+ this.property + "." + name + ", or create the spec in code under another name");
	}

	/**
	 * @param handle what users call
	 * @param spec the spec it runs with
	 * @param configured the configured spec last seen for the name, {@code null} if none was
	 * @param inCode whether the spec came from code ({@code create} of a name not configured then), so that a
	 * configuration of the name is a second spec rather than a reload
	 */
	private record Entry<S, H>(H handle, S spec, @Nullable S configured, boolean inCode) {
	}

}
