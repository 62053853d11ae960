package io.rediskit.sample;

import java.time.Duration;
import java.util.Map;

import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.Lease;
import io.rediskit.lock.RedisLock;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/turns/{resource}}: waits for this request's turn on a fair lock of the resource (callers served
 * in the order they asked, across every instance of the sample) and answers with the turn's fencing token, which
 * increases with every turn. 409 when the turn does not come within 10 seconds.
 */
@RestController
@RequestMapping("/api/turns")
public class TurnController {

	private final FairLockRegistry fairLocks;

	TurnController(FairLockRegistry fairLocks) {
		this.fairLocks = fairLocks;
	}

	@PostMapping("/{resource}")
	public Map<String, Object> take(@PathVariable String resource) {
		// One lock per resource, tagged with the group "turns" in the metrics.
		RedisLock turn = this.fairLocks.getLock("turns", resource);
		try (Lease lease = turn.acquire(Duration.ofSeconds(10))) {
			return Map.of("resource", resource, "turn", lease.fencingToken());
		}
	}

}
