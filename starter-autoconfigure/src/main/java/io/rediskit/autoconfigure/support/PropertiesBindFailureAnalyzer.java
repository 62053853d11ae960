package io.rediskit.autoconfigure.support;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionFailedException;

/**
 * Reports binding failures under {@code redis-kit} in the words of YAML, ahead of Spring Boot's own analyzers
 * (which print the binding target as {@code Bindable@...}, a field as its Java name and enum constants as Java
 * names):
 * <ul>
 * <li>properties that bind to nothing (a typo, a setting the group does not have, a name with a {@code .} read as
 * a name and a setting): each property, its value and origin, and the properties its place does have;</li>
 * <li>settings written with no value ({@code period:} in YAML), under a heading of their own;</li>
 * <li>a value that is none of an enum's: the values YAML takes, such as {@code fixed-window}, not
 * {@code FIXED_WINDOW}.</li>
 * </ul>
 * Other failures, and failures outside {@code redis-kit}, are left to Spring Boot's analyzers.
 */
class PropertiesBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("redis-kit");

	private static final String BINDS_TO_NOTHING = " binds to nothing";

	@Override
	public int getOrder() {
		// Before Spring Boot's analyzers, which would answer these failures first (they are not ordered).
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		if (!ROOT.isAncestorOf(cause.getName()) && !ROOT.equals(cause.getName())) {
			return null;
		}
		if (cause.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
			return unbound(cause, unbound);
		}
		ConversionFailedException conversion = enumConversion(cause);
		if (conversion != null) {
			return notAnEnumValue(cause, conversion.getTargetType().getType(), conversion.getValue());
		}
		return null;
	}

	// The conversion of one enum value: of the whole value, or of one element of a list ('daily, yearly').
	private static @Nullable ConversionFailedException enumConversion(Throwable failure) {
		ConversionFailedException found = null;
		for (Throwable ex = failure; ex != null && ex != ex.getCause(); ex = ex.getCause()) {
			if (ex instanceof ConversionFailedException conversion && conversion.getTargetType().getType().isEnum()) {
				found = conversion;
			}
		}
		return found;
	}

	private FailureAnalysis unbound(BindException cause, UnboundConfigurationPropertiesException unbound) {
		// A setting that exists but was written with no value ('period:' in YAML) is unbound too, for another reason:
		// each kind under its own heading, so that neither heading says what is not so.
		Map<ConfigurationProperty, String> empty = new LinkedHashMap<>();
		Map<ConfigurationProperty, String> nothing = new LinkedHashMap<>();
		for (ConfigurationProperty property : unbound.getUnboundProperties()) {
			String reason = reason(cause.getName(), cause.getTarget().getType(), property.getName());
			if (reason.endsWith(BINDS_TO_NOTHING) && property.getValue() instanceof CharSequence text
					&& text.toString().isBlank()) {
				empty.put(property, property.getName() + " has no value: give it one or remove it");
			}
			else {
				nothing.put(property, reason);
			}
		}
		StringBuilder description = new StringBuilder();
		List<String> actions = new ArrayList<>();
		if (!empty.isEmpty()) {
			section(description, cause.getName() + " has " + ((empty.size() == 1) ? "a property written"
					: empty.size() + " properties written") + " with no value:\n", empty);
			actions.add("Give the properties with no value one, or remove them.");
		}
		if (!nothing.isEmpty()) {
			section(description, cause.getName() + " has " + ((nothing.size() == 1) ? "a property that binds"
					: nothing.size() + " properties that bind") + " to nothing:\n", nothing);
			actions.add("Correct or remove the properties that bind to nothing: each reason lists the properties its"
					+ " place has. A name of your own (a limiter, a queue, a filter, ...) is " + Names.RULE
					+ ", with no '.': YAML reads 'api.v1:' as the name 'api' and a setting 'v1'; write 'api-v1'.");
		}
		return new FailureAnalysis(description.toString(), String.join(" ", actions), cause);
	}

	private static void section(StringBuilder description, String heading, Map<ConfigurationProperty, String> reasons) {
		if (!description.isEmpty()) {
			description.append('\n');
		}
		description.append(heading);
		reasons.forEach((property, reason) -> append(description, property, reason));
	}

	// Walks the property's elements down the bound type to the first that names nothing, and says what is there.
	private static String reason(ConfigurationPropertyName root, ResolvableType rootType,
			ConfigurationPropertyName name) {
		ResolvableType type = rootType;
		String mapKey = null;
		for (int i = root.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
			String element = name.getElement(i, Form.DASHED);
			String at = name.chop(i).toString();
			Class<?> resolved = type.resolve(Object.class);
			if (Map.class.isAssignableFrom(resolved)) {
				mapKey = name.getElement(i, Form.ORIGINAL);
				type = type.asMap().getGeneric(1);
				continue;
			}
			if (Collection.class.isAssignableFrom(resolved) || resolved.isArray()) {
				type = resolved.isArray() ? type.getComponentType() : type.asCollection().getGeneric(0);
				mapKey = null;
				continue;
			}
			Map<String, PropertyDescriptor> properties = properties(resolved);
			if (properties.isEmpty()) {
				return at + " is a single value: it has no property '" + element + "'";
			}
			PropertyDescriptor property = properties.get(element);
			if (property == null) {
				String reason = at + " has no property '" + element + "'; its properties are "
						+ String.join(", ", properties.keySet());
				if (mapKey != null) {
					reason += ". If '" + mapKey + "." + name.getElement(i, Form.ORIGINAL) + "' was meant as one name:"
							+ " names are " + Names.RULE + ", with no '.'; write '" + mapKey + "-"
							+ name.getElement(i, Form.ORIGINAL) + "'";
				}
				return reason;
			}
			Method getter = property.getReadMethod();
			type = (getter != null) ? ResolvableType.forMethodReturnType(getter, resolved)
					: ResolvableType.forClass(property.getPropertyType());
			mapKey = null;
		}
		return name + BINDS_TO_NOTHING;
	}

	// The properties Spring Boot binds on a JavaBean of ours, by their names in YAML; none for a value type.
	private static Map<String, PropertyDescriptor> properties(Class<?> type) {
		if (type.isPrimitive() || type.isEnum() || type.getName().startsWith("java.")) {
			return Map.of();
		}
		return Arrays.stream(BeanUtils.getPropertyDescriptors(type))
			.filter((property) -> property.getReadMethod() != null && !"class".equals(property.getName()))
			.collect(Collectors.toMap((property) -> DataObjectPropertyName.toDashedForm(property.getName()),
					(property) -> property, (first, second) -> first, TreeMap::new));
	}

	private FailureAnalysis notAnEnumValue(BindException cause, Class<?> enumType, @Nullable Object element) {
		List<String> values = Arrays.stream(enumType.getEnumConstants())
			.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
			.toList();
		ConfigurationProperty property = cause.getProperty();
		String value = (property != null) ? String.valueOf(property.getValue()) : "";
		String rejected = (element != null) ? String.valueOf(element).trim() : value;
		StringBuilder description = new StringBuilder(cause.getName() + " has a value it does not take:\n");
		// A list is reported by the element at fault: its other elements may be right.
		String reason = "'" + rejected + "'" + (rejected.equals(value.trim()) ? "" : " (of '" + value + "')")
				+ " is not one of " + String.join(", ", values);
		if (property != null) {
			append(description, property, reason);
		}
		else {
			description.append("\n    Property: ").append(cause.getName()).append("\n    Reason: ").append(reason);
		}
		StringBuilder action = new StringBuilder("Set " + cause.getName() + " to one of:\n");
		values.forEach((valid) -> action.append("\n    ").append(valid));
		return new FailureAnalysis(description.toString(), action.toString(), cause);
	}

	private static void append(StringBuilder description, ConfigurationProperty property, String reason) {
		description.append("\n    Property: ").append(property.getName());
		description.append("\n    Value: \"").append(property.getValue()).append('"');
		if (property.getOrigin() != null) {
			description.append("\n    Origin: ").append(property.getOrigin());
		}
		description.append("\n    Reason: ").append(reason).append('\n');
	}

}
