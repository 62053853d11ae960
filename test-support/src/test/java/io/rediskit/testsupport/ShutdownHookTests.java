package io.rediskit.testsupport;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A JVM that exits without closing its servers, cluster or Sentinel group leaves no process behind. */
class ShutdownHookTests {

	@Test
	void aJvmExitingWithoutClosingLeavesNoServerRunning() throws Exception {
		// The child starts a cluster too.
		RedisServerBinary.assumeAtLeast(7, 0, "Redis Cluster with its bus on a free port (cluster-port)");
		Process child = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "-cp",
				System.getProperty("java.class.path"), Child.class.getName())
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		List<Long> pids = new ArrayList<>();
		try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = out.readLine()) != null) {
				if (line.startsWith("pid ")) {
					pids.add(Long.parseLong(line.substring(4)));
				}
			}
		}
		assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(child.exitValue()).isZero();
		assertThat(pids).as("a server, a cluster and a Sentinel group").hasSize(1 + 6 + 5);
		for (long pid : pids) {
			ProcessHandle.of(pid).ifPresent((handle) -> {
				handle.onExit().orTimeout(10, TimeUnit.SECONDS).join();
			});
			assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("redis-server %d", pid)
				.isNotEqualTo(java.util.Optional.of(true));
		}
	}

	/** Starts servers, prints their process ids and exits without closing anything. */
	static final class Child {

		public static void main(String[] args) {
			RedisServerProcess server = RedisServerProcess.start();
			RedisCluster cluster = RedisCluster.start();
			RedisSentinelGroup group = RedisSentinelGroup.start();
			System.out.println("pid " + server.pid());
			cluster.nodes().forEach((node) -> System.out.println("pid " + node.pid()));
			group.dataNodes().forEach((node) -> System.out.println("pid " + node.pid()));
			group.sentinels().forEach((node) -> System.out.println("pid " + node.pid()));
			group.dataNodes().get(1).pause();
		}

	}

}
