package io.rediskit.sample;

import java.util.List;

import io.rediskit.leader.LeaderElection;
import io.rediskit.leader.LeaderElections;
import io.rediskit.leader.LeadershipGrantedEvent;
import io.rediskit.leader.LeadershipRevokedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.event.EventListener;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /leaders}: the roles this instance stands for ({@code redis-kit.lock.leader.roles}), whether it leads
 * each and who does; {@code POST /leaders/{role}/yield}: gives a role up so that another instance takes it
 * (404 for a role this instance does not stand for). Grants and revocations are logged from their application
 * events. Start two instances (another {@code server.port}) to see the role move.
 */
@RestController
@RequestMapping("/leaders")
public class LeaderController {

	private static final Log logger = LogFactory.getLog(LeaderController.class);

	private final LeaderElections elections;

	LeaderController(LeaderElections elections) {
		this.elections = elections;
	}

	@GetMapping
	List<Role> roles() {
		return this.elections.elections().stream().map(Role::of).toList();
	}

	@PostMapping("/{role}/yield")
	ResponseEntity<Role> yieldRole(@PathVariable String role) {
		for (LeaderElection election : this.elections.elections()) {
			if (election.role().equals(role)) {
				election.yieldLeadership();
				return ResponseEntity.ok(Role.of(election));
			}
		}
		return ResponseEntity.notFound().build();
	}

	@EventListener
	void granted(LeadershipGrantedEvent event) {
		logger.info("Leading " + event.role() + " in term " + event.term());
	}

	@EventListener
	void revoked(LeadershipRevokedEvent event) {
		logger.info("No longer leading " + event.role() + " (term " + event.term() + ", " + event.reason()
				+ ")");
	}

	/**
	 * One role.
	 * @param role the role
	 * @param leading whether this instance leads it
	 * @param leader who leads it, {@code null} when nobody does
	 * @param term the leader's term, {@code 0} when nobody leads
	 */
	record Role(String role, boolean leading, @Nullable String leader, long term) {

		static Role of(LeaderElection election) {
			return election.currentLeader()
				.map((leader) -> new Role(election.role(), election.isLeader(), leader.instance(), leader.term()))
				.orElseGet(() -> new Role(election.role(), election.isLeader(), null, 0));
		}

	}

}
