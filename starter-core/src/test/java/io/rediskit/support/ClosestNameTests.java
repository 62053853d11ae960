package io.rediskit.support;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The "did you mean" of unknown-name startup errors: a configured name close enough to be a typo, never anything
 * else.
 */
class ClosestNameTests {

	@Test
	void suggestsTheConfiguredNameOneTypoAway() {
		List<String> configured = List.of("api", "login", "payments");
		assertThat(ClosestName.of("apl", configured)).contains("api");
		assertThat(ClosestName.of("aip", configured)).as("two letters swapped").contains("api");
		assertThat(ClosestName.of("API", configured)).as("case").contains("api");
		assertThat(ClosestName.of("logins", configured)).contains("login");
		assertThat(ClosestName.of("paymnets", configured)).contains("payments");
		assertThat(ClosestName.of("paymts", configured)).as("two edits in eight letters").contains("payments");
		assertThat(ClosestName.didYouMean("apl", configured)).isEqualTo(" (did you mean 'api'?)");
	}

	@Test
	void suggestsNothingFarOffOrWhenNothingIsConfigured() {
		List<String> configured = List.of("api", "login", "payments");
		assertThat(ClosestName.of("nowhere", configured)).isEmpty();
		assertThat(ClosestName.of("ab", configured)).as("two edits in a short name").isEmpty();
		assertThat(ClosestName.of("orders", configured)).isEmpty();
		assertThat(ClosestName.of("api", Set.of())).isEmpty();
		assertThat(ClosestName.of("", configured)).isEmpty();
		assertThat(ClosestName.of("a".repeat(10_000), List.of("a".repeat(64)))).as("input longer than a name")
			.isEmpty();
		assertThat(ClosestName.didYouMean("nowhere", configured)).isEmpty();
	}

	@Test
	void ofEquallyCloseNamesTheFirstAlphabeticallyWhateverTheOrder() {
		assertThat(ClosestName.of("cat", List.of("cut", "bat", "cap"))).contains("bat");
		assertThat(ClosestName.of("cat", List.of("cap", "cut", "bat"))).contains("bat");
		assertThat(ClosestName.of("cat", List.of("cap", "ca"))).contains("ca");
		assertThat(ClosestName.of("orders", List.of("order", "orders-eu"))).as("closer wins").contains("order");
	}

}
