package io.rediskit.leader;

import java.util.Set;

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

	@Test
	void aLogOfJvmsJudgesTheOrderOfGrantsWithinEachInstanceOnly() {
		TermLog log = TermLog.ofJvms();
		// b's grant of term 5 was read first, though a's grant of term 4 came before it.
		log.granted("b", 5);
		log.granted("a", 4);
		assertThat(log.violations()).isEmpty();
		log.granted("a", 2);
		log.granted("a", 5);
		assertThat(log.violations()).containsExactly("term 2 granted to a after term 4",
				"term 5 granted to b and again to a");
	}

	@Test
	void writesAreJudgedInTheOrderTheServerTookThemNotInTheOrderTheyWereRead() {
		TermLog log = TermLog.ofJvms();
		// w0 wrote term 1 before it was killed; its line was read after that of w2, which wrote term 2 later.
		log.wrote("w2", 2, true, 2);
		log.wrote("w0", 1, true, 1);
		// w1, paused between its grant and its write, wrote its stale term 3 after w2's term 4.
		log.wrote("w2", 4, true, 4);
		log.wrote("w1", 3, false, 5);
		log.writeFailed("w2", 6);
		assertThat(log.writes()).extracting(TermLog.Write::term).containsExactly(1L, 2L, 4L, 3L);
		assertThat(log.writeViolations(Set.of("w1"))).isEmpty();
	}

	@Test
	void findsWritesOfTwoLeadersThatInterleave() {
		TermLog log = TermLog.ofJvms();
		log.wrote("w0", 1, true, 1);
		log.wrote("w1", 3, true, 2);
		// Read in term order, but the server took term 2 after term 3: two leaders wrote at once.
		log.wrote("w0", 2, true, 3);
		assertThat(log.writeViolations(Set.of("w0", "w1"))).first()
			.isEqualTo("term 2 of w0 accepted after term 3 of w1");
	}

	@Test
	void findsARefusedWriteOfAnInstanceThatWasNotPaused() {
		TermLog log = TermLog.ofJvms();
		log.wrote("w0", 2, true, 1);
		log.wrote("w1", 1, false, 2);
		assertThat(log.writeViolations(Set.of("w2"))).first().isEqualTo("term 1 of w1 refused");
		assertThat(log.writeViolations(Set.of("w1"))).isEmpty();
	}

}
