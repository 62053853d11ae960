package io.rediskit.lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link TermLog} finds what it must find, so that its silence in the election tests means something. */
class TermLogTests {

	@Test
	void increasingTermsEachGrantedOncePass() {
		TermLog log = new TermLog();
		log.granted("a", 1);
		log.revoked("a", 1, "YIELDED");
		log.granted("b", 5);
		log.granted("a", 7);
		assertThat(log.violations()).isEmpty();
		assertThat(log.leader()).hasValueSatisfying((leader) -> assertThat(leader.instance()).isEqualTo("a"));
	}

	@Test
	void findsATermGrantedTwice() {
		TermLog log = new TermLog();
		log.granted("a", 3);
		log.granted("b", 3);
		assertThat(log.violations()).anySatisfy((violation) -> assertThat(violation).contains("again to b"));
	}

	@Test
	void findsATermThatDidNotIncrease() {
		TermLog log = new TermLog();
		log.granted("a", 9);
		log.granted("b", 4);
		assertThat(log.violations()).singleElement().asString().contains("after term 9");
	}

}
