package io.rediskit.support;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A name was given a second, different spec: created in code with a spec other than the one configured for it,
 * or created twice with different specs. Two specs under one name would mean two handles that write to
 * different keys (a geo index at another precision, a Bloom filter of other sizing) or one handle whose spec
 * changes under the code that made it, so the registry refuses, naming both specs and their differences, and
 * changes nothing. See {@link NamedSpecs} for the rule.
 */
public class SpecConflictException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String name;

	private final transient Object knownSpec;

	private final transient Object requestedSpec;

	/**
	 * @param kind what has the name, such as {@code Geo index}
	 * @param name the name
	 * @param known the spec the name has, and where it came from, such as {@code configured under
	 * redis-kit.geo.indexes.bikes}
	 * @param knownSpec that spec
	 * @param requested where the other spec came from, such as {@code passed to create}
	 * @param requestedSpec the other spec
	 * @param advice what to do, a sentence
	 */
	public SpecConflictException(String kind, String name, String known, Object knownSpec, String requested,
			Object requestedSpec, String advice) {
		super(kind + " '" + name + "' cannot have two specs: " + known + " it is " + knownSpec + ", " + requested
				+ " it is " + requestedSpec + differences(knownSpec, requestedSpec) + ". " + advice);
		this.name = name;
		this.knownSpec = Objects.requireNonNull(knownSpec, "knownSpec must not be null");
		this.requestedSpec = Objects.requireNonNull(requestedSpec, "requestedSpec must not be null");
	}

	/** @return the name both specs were given for */
	public String getName() {
		return this.name;
	}

	/** @return the spec the name has */
	public Object getKnownSpec() {
		return this.knownSpec;
	}

	/** @return the spec that was refused */
	public Object getRequestedSpec() {
		return this.requestedSpec;
	}

	/** The components that differ, so that a reader need not compare two long records by eye. */
	private static String differences(Object known, Object requested) {
		if (!known.getClass().isRecord() || known.getClass() != requested.getClass()) {
			return "";
		}
		List<String> differing = new ArrayList<>();
		for (RecordComponent component : known.getClass().getRecordComponents()) {
			try {
				Object a = component.getAccessor().invoke(known);
				Object b = component.getAccessor().invoke(requested);
				if (!Objects.equals(a, b)) {
					differing.add(component.getName() + " " + a + " against " + b);
				}
			}
			catch (ReflectiveOperationException | RuntimeException ex) {
				// A record this class cannot read: both specs are printed whole anyway.
				return "";
			}
		}
		return differing.isEmpty() ? "" : " (differing: " + String.join(", ", differing) + ")";
	}

}
