package io.rediskit.leader;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.LockTesting;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.RedisTopology;
import io.rediskit.testsupport.Topology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election through faults, checked by a {@link TermLog} that knows nothing of the election: at most one
 * leader per term and terms strictly increasing while a leader JVM is killed ({@code kill -9}), a leader JVM is
 * paused ({@code SIGSTOP}) past its lease and resumes, the Redis server is paused past the lease, and a Sentinel
 * failover moves the master. Across candidate JVMs, the order of terms is judged by each leader's fenced write, in
 * the order the resource's server took the writes, never in the order their lines reach this JVM.
 */
class LeaderElectionFaultTests {

	/** The leadership's lease: short, so that each fault is over in a second or two. */
	static final Duration LEASE = Duration.ofMillis(1000);

	/** Generous for a loaded machine: a worker JVM's start, or a lease and its hand-over, with room to spare. */
	static final Duration PATIENCE = Duration.ofSeconds(30);

	@Test
	void oneLeaderPerTermThroughKillsAndPauses() throws Exception {
		TermLog log = TermLog.ofJvms();
		String role = "reports";
		String resource = "leader-resource";
		Map<String, Process> workers = new ConcurrentHashMap<>();
		String[] pausedInstance = new String[1];
		try (RedisServerProcess server = RedisServerProcess.start()) {
			for (String instance : List.of("w0", "w1", "w2")) {
				workers.put(instance, LeaderWorker.start(log, Integer.toString(server.port()), role,
						Long.toString(LEASE.toMillis()), instance, resource));
			}
			try {
				TermLog.Entry first = log.await("a first leader", 0, TermLog.Entry::granted, PATIENCE);

				// A leader killed: another takes over once its lease ran out, in a higher term.
				int mark = log.size();
				signal(workers.get(first.instance()), "KILL");
				TermLog.Entry second = log.await("a leader after the kill", mark, TermLog.Entry::granted, PATIENCE);
				assertThat(second.instance()).isNotEqualTo(first.instance());

				// A leader paused past its lease: the other takes over; the paused one, resumed, learns it lost.
				mark = log.size();
				Process paused = workers.get(second.instance());
				pausedInstance[0] = second.instance();
				signal(paused, "STOP");
				TermLog.Entry third;
				try {
					third = log.await("a leader while the last one is paused", mark, TermLog.Entry::granted, PATIENCE);
				}
				finally {
					signal(paused, "CONT");
				}
				assertThat(third.instance()).isNotEqualTo(second.instance());
				log.await("the paused leader told it lost", mark,
						(entry) -> !entry.granted() && entry.term() == second.term()
								&& entry.reason().equals("LEASE_LOST"),
						PATIENCE);

				// The server paused past the lease: the leader revokes itself before anyone can be granted.
				mark = log.size();
				TermLog.Entry leader = log.leader().orElseThrow();
				server.pause();
				TermLog.Entry revoked;
				try {
					revoked = log.await("the leader revoking itself while Redis is paused", mark,
							(entry) -> !entry.granted() && entry.term() == leader.term(), PATIENCE);
					assertThat(revoked.reason()).isEqualTo("LEASE_LOST");
					assertThat(log.entries().subList(mark, log.size())).as("no grant while Redis is paused")
						.noneMatch(TermLog.Entry::granted);
				}
				finally {
					server.resume();
				}
				TermLog.Entry after = log.await("a leader after Redis resumed", mark, TermLog.Entry::granted, PATIENCE);
				assertThat(after.term()).isGreaterThan(leader.term());
				assertThat(after.nanos()).isGreaterThan(revoked.nanos());
			}
			finally {
				workers.values().forEach(Process::destroyForcibly);
				for (Process worker : workers.values()) {
					worker.waitFor(10, TimeUnit.SECONDS);
				}
			}
		}
		assertThat(log.violations()).as("terms in " + log.entries()).isEmpty();
		// A leader writes once granted; the paused one may write as it resumes, with its stale term. The writes are
		// judged in the order the resource's server took them: the order their lines were read here is not that
		// (a killed leader's last line was once read after its successor's).
		assertThat(log.writes()).as("fenced writes").isNotEmpty();
		assertThat(log.writeViolations(Set.of(pausedInstance[0]))).isEmpty();
	}

	@Test
	void termsKeepIncreasingThroughASentinelFailover() throws Exception {
		TermLog log = new TermLog();
		try (RedisTopology sentinel = RedisTopology.start(Topology.SENTINEL, Duration.ofSeconds(1))) {
			List<LockRegistry> registries = new ArrayList<>();
			List<LeaderElections> candidates = new ArrayList<>();
			try {
				for (String instance : List.of("s0", "s1")) {
					LockRegistry registry = new LockRegistry(TopologyScripts.of(sentinel), sentinel.connections(),
							KeyNaming.defaults(), LockSpec.defaults().withWatchdogTimeout(LEASE), List.of(),
							Clock.systemUTC());
					registries.add(registry);
					LeaderElections elections = new LeaderElections(registry, List.of(recorder(log, instance)), instance,
							Duration.ofMillis(50));
					elections.elect("failover");
					elections.start();
					candidates.add(elections);
				}
				TermLog.Entry before = log.await("a first leader", 0, TermLog.Entry::granted, PATIENCE);
				int mark = log.size();
				sentinel.sentinel().failover();
				// Whether or not the lease survived the failover, a leader must lead on the new master in time.
				LockTesting.awaitCondition("a leader confirmed by the new master", PATIENCE, () -> {
					long leaders = candidates.stream()
						.filter((elections) -> elections.elections().get(0).isLeader())
						.count();
					var current = candidates.get(0).elections().get(0).currentLeader();
					return leaders == 1 && current.isPresent() && log.leader().isPresent()
							&& current.get().term() == log.leader().get().term() && log.size() >= mark;
				});
				assertThat(log.leader().orElseThrow().term()).isGreaterThanOrEqualTo(before.term());
			}
			finally {
				candidates.forEach(LeaderElections::stop);
				registries.forEach(LockRegistry::close);
			}
		}
		assertThat(log.violations()).as("terms in " + log.entries()).isEmpty();
	}

	static LeadershipListener recorder(TermLog log, String instance) {
		return new LeadershipListener() {

			@Override
			public void onGranted(LeadershipGrantedEvent event) {
				log.granted(instance, event.term());
			}

			@Override
			public void onRevoked(LeadershipRevokedEvent event) {
				log.revoked(instance, event.term(), event.reason().name());
			}

		};
	}

	private static void signal(Process process, String signal) throws Exception {
		Process kill = new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(process.pid())).start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).isZero();
	}

}
