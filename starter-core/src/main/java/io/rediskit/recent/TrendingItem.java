package io.rediskit.recent;

import java.util.Objects;

/**
 * An item of the trending list with its views over the trending period.
 *
 * @param item the item
 * @param views how many views it had
 */
public record TrendingItem(String item, long views) {

	/**
	 * Checks the values.
	 */
	public TrendingItem {
		Objects.requireNonNull(item, "item must not be null");
	}

}
