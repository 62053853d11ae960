package io.rediskit.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Settings every redis-kit primitive shares, under {@code redis-kit}.
 */
@ConfigurationProperties("redis-kit")
public class RedisKitProperties implements Validator {

	/**
	 * Prefix of every Redis key redis-kit writes; must not contain braces.
	 */
	private String keyPrefix = "rk:";

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	@Override
	public boolean supports(Class<?> type) {
		return RedisKitProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		String prefix = ((RedisKitProperties) target).getKeyPrefix();
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			errors.rejectValue("keyPrefix", "braces",
					"redis-kit.key-prefix must not contain '{' or '}': they would move keys to other hash slots");
		}
	}

}
