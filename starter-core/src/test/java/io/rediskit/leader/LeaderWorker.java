package io.rediskit.leader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.LockTesting;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerJvm;
import io.rediskit.testsupport.WorkerLifetime;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A candidate JVM for the leader election tests: {@code <port> <role> <watchdogMillis> <instance> <resource>}.
 * Prints {@code granted <term>} and {@code revoked <term> <reason>} as they happen and, after each grant, a
 * fenced write of the term to {@code <resource>} as {@code write <term> <accepted> <sequence>} (the write's place
 * in the resource's history, numbered by the server) or {@code write <term> failed}; runs until killed. Ends
 * itself after {@link #LIFETIME}, or as soon as the JVM that started it is gone.
 */
public final class LeaderWorker {

	/** How long a worker lives at the most. */
	static final Duration LIFETIME = Duration.ofMinutes(3);

	private LeaderWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("LeaderWorker", LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		connections.afterPropertiesSet();
		connections.start();
		String resource = args[4];
		// The fenced write runs apart from the scheduler, which must keep renewing while it waits on Redis.
		ExecutorService writer = Executors.newSingleThreadExecutor();
		LeadershipListener printer = new LeadershipListener() {

			@Override
			public void onGranted(LeadershipGrantedEvent event) {
				print("granted " + event.term());
				writer.execute(() -> {
					try {
						LockTesting.FencedWrite write = LockTesting.fencedWriteInOrder(connections, resource,
								event.term(), args[3]);
						print("write " + event.term() + " " + write.accepted() + " " + write.sequence());
					}
					catch (RuntimeException ex) {
						print("write " + event.term() + " failed");
					}
				});
			}

			@Override
			public void onRevoked(LeadershipRevokedEvent event) {
				print("revoked " + event.term() + " " + event.reason());
			}

		};
		LockRegistry registry = new LockRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[2]))), List.of(),
				Clock.systemUTC());
		LeaderElections elections = new LeaderElections(registry, List.of(printer), args[3], Duration.ofMillis(50));
		elections.elect(args[1]);
		elections.start();
		print("ready");
		Thread.sleep(LIFETIME.toMillis());
	}

	private static synchronized void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

	/**
	 * Starts a candidate and feeds what it prints, as grants, revocations and writes, into the log, which must be
	 * one {@linkplain TermLog#ofJvms() of candidate JVMs}: each candidate's lines are read by a thread of their own.
	 */
	static Process start(TermLog log, String... args) throws IOException {
		Process process = WorkerJvm.of(LeaderWorker.class, args).heap("128m").lifetime(LIFETIME).start();
		String instance = args[3];
		Thread reader = new Thread(() -> {
			try (BufferedReader output = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = output.readLine(); line != null; line = output.readLine()) {
					String[] words = line.split(" ");
					if (words[0].equals("granted")) {
						log.granted(instance, Long.parseLong(words[1]));
					}
					else if (words[0].equals("revoked")) {
						log.revoked(instance, Long.parseLong(words[1]), words[2]);
					}
					else if (words[0].equals("write") && words[2].equals("failed")) {
						log.writeFailed(instance, Long.parseLong(words[1]));
					}
					else if (words[0].equals("write")) {
						log.wrote(instance, Long.parseLong(words[1]), Boolean.parseBoolean(words[2]),
								Long.parseLong(words[3]));
					}
				}
			}
			catch (IOException ex) {
				// The process is gone: what it printed so far is all there is.
			}
		}, "leader-worker-" + instance);
		reader.setDaemon(true);
		reader.start();
		return process;
	}

}
