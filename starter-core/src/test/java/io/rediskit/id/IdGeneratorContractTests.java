package io.rediskit.id;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What id generators promise on every topology (run once per {@link Topology}): two registries (two instances)
 * on one counter never hand out one id twice.
 */
class IdGeneratorContractTests extends TopologyContract {

	@Test
	void reservedReadsHowFarEveryInstanceReservedAndReservesNothing() {
		String name = this.redis.unique("reserved");
		IdGenerator one = new IdGeneratorRegistry(CommandExecutor.of(this.redis.connections()), KeyNaming.defaults(),
				(n) -> null).create(name, IdGeneratorSpec.ofBlockSize(10));
		IdGenerator two = new IdGeneratorRegistry(CommandExecutor.of(this.redis.connections()), KeyNaming.defaults(),
				(n) -> null).create(name, IdGeneratorSpec.ofBlockSize(10));
		assertThat(one.reserved()).as("none yet").isZero();
		assertThat(one.next()).isEqualTo(1);
		assertThat(two.next()).isEqualTo(11);
		assertThat(one.reserved()).isEqualTo(20);
		assertThat(two.reserved()).as("a read reserves nothing").isEqualTo(20);
		assertThat(one.next()).as("from its own block").isEqualTo(2);
	}

	@Test
	void twoInstancesNeverShareAnId() throws Exception {
		String name = this.redis.unique("ids");
		List<long[]> sources = new ArrayList<>();
		for (int instance = 0; instance < 2; instance++) {
			IdGenerator ids = new IdGeneratorRegistry(CommandExecutor.of(this.redis.connections()), KeyNaming.defaults(),
					(n) -> null).create(name, IdGeneratorSpec.ofBlockSize(7 + instance));
			sources.addAll(List.of(IdGeneratorConcurrencyTests.take(ids, 4, 500)));
		}
		assertThat(IdChecker.duplicates(sources)).isEmpty();
		assertThat(IdChecker.notIncreasing(sources)).isEmpty();
		assertThat(this.redis.exists(KeyNaming.defaults().key("id", name))).isTrue();
	}

}
