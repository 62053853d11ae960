package io.rediskit.recent;

import java.time.Clock;
import java.util.List;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.HostileNames;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What recent items promise on every topology (run once per {@link Topology}): a view (user list and trending
 * bucket) and the trending union run in one slot, for hostile users and items too.
 */
class RecentItemsContractTests extends TopologyContract {

	@Test
	void viewsAndTrendingWorkInOneSlotForHostileUsersAndItems() {
		RecentItemsRegistry registry = new RecentItemsRegistry(TopologyScripts.of(this.redis),
				CommandExecutor.of(this.redis.connections()), KeyNaming.defaults(), (name) -> null,
				Clock.systemUTC());
		RecentItems viewed = registry.create(this.redis.unique("viewed"), RecentItemsSpec.of(5));
		List<String> hostile = HostileNames.generate("x", 12, 11);
		for (String user : hostile) {
			for (String item : hostile.subList(0, 3)) {
				viewed.view(user, item);
			}
			assertThat(viewed.recent(user, 5)).containsExactly(hostile.get(2), hostile.get(1), hostile.get(0));
		}
		assertThat(viewed.trending(3)).extracting(TrendingItem::views).containsExactly(12L, 12L, 12L);
	}

}
