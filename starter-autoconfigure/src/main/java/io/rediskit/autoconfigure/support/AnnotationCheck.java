package io.rediskit.autoconfigure.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The startup check of one kind of redis-kit annotation ({@code @DistributedLock}, {@code @RateLimited},
 * {@code @QueueListener}), as a bean. Once the singletons exist, the first check told so runs every check of the
 * application ({@link #checkAll}), so that one {@link InvalidAnnotationException} lists every bad annotation of
 * every kind and every bean, not those of whichever check happened to run first.
 */
public interface AnnotationCheck {

	/** @return the annotation's simple name, such as {@code RateLimited} */
	String annotationName();

	/**
	 * Checks the annotated methods not checked yet; a second call finds nothing new.
	 * @return one line per method at fault, naming bean, class, method and attribute; empty when all are fine
	 */
	List<String> checkPending();

	/**
	 * Runs every {@link AnnotationCheck} bean of the factory, in the order of their annotations' names, and
	 * fails with one exception listing what each found.
	 * @param beanFactory where the checks are
	 * @throws InvalidAnnotationException naming every method at fault, grouped by annotation
	 */
	static void checkAll(ListableBeanFactory beanFactory) {
		Map<String, List<String>> failures = new TreeMap<>();
		for (AnnotationCheck check : beanFactory.getBeansOfType(AnnotationCheck.class, false, false).values()) {
			List<String> found = check.checkPending();
			if (!found.isEmpty()) {
				failures.computeIfAbsent(check.annotationName(), (name) -> new ArrayList<>()).addAll(found);
			}
		}
		if (!failures.isEmpty()) {
			throw new InvalidAnnotationException(new LinkedHashMap<>(failures));
		}
	}

}
