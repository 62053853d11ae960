package io.rediskit.queue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerLifetime;
import io.rediskit.testsupport.WorkerJvm;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A consumer JVM for the queue tests, started with {@link ProcessBuilder}.
 * <ul>
 * <li>{@code consume <port> <queue> <log file> <concurrency> <visibility ms>}: consumes with a listener
 * container, writing the {@link DeliveryLogChecker} log; prints {@code ready}; stops gracefully when standard
 * input closes and prints {@code stopped}.</li>
 * <li>{@code workflow <port> <queue> <log file> <concurrency> <visibility ms>}: consumes flows and batches with a
 * listener container, writing the {@link WorkflowLogChecker} log: {@code D <id> <delivery count> <nanos>} as a
 * handler starts; a child sets its number as its result; a parent reads its children and writes
 * {@code P <id> <children succeeded> <sum of their results>}; a message named {@code fail} is dead-lettered
 * ({@code X <id>}); the others ack as in {@code consume}, with {@code a <id> <nanos>} (the machine's monotonic
 * clock, shared by the JVMs of one machine) as the ack is asked for. Prints {@code ready}; stops when standard
 * input closes.</li>
 * <li>{@code hold <port> <queue> <visibility ms>}: polls one message, prints {@code got <id>}, waits for a line
 * on standard input (meanwhile the test pauses it past its visibility), acks and prints {@code ack=ok} or
 * {@code ack=stale}.</li>
 * <li>{@code enqueue <port> <keys> <rounds>}: for each line {@code go <queue> <mode> <window ms> <delay ms> <base>}
 * on standard input, enqueues the ids {@code k0} to {@code k<keys - 1>}, {@code rounds} times each, under that
 * {@link Deduplication.Mode} (payload: the id and {@code base} plus the round), printing
 * {@code R <id> <payload> <outcome> <message id>} for each, then {@code done}; ends when standard input closes.</li>
 * </ul>
 */
public final class QueueWorker {

	private QueueWorker() {
	}

	public static void main(String[] args) throws Exception {
		// Long enough for the longest run that starts one; a hung or orphaned worker never outlives the build.
		WorkerLifetime.haltWhenOverdueOrOrphaned("QueueWorker", Duration.ofMinutes(10));
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[1])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		QueueRegistry registry = new QueueRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		switch (args[0]) {
			case "consume" -> consume(registry, args);
			case "workflow" -> workflow(registry, args);
			case "hold" -> hold(registry, args);
			case "enqueue" -> enqueue(registry, args);
			default -> throw new IllegalArgumentException(args[0]);
		}
		registry.close();
		connections.destroy();
	}

	private static void consume(QueueRegistry registry, String[] args) throws Exception {
		RedisQueue<Job> queue = registry.create(args[2], spec(Long.parseLong(args[5])), Job.class);
		try (Writer log = Files.newBufferedWriter(Path.of(args[3]), StandardCharsets.UTF_8)) {
			QueueListenerContainer<Job> container = registry.createContainer(queue, (message) -> {
				write(log, "D " + message.id() + " " + message.deliveryCount());
				// A little work, so that a killed consumer always dies with messages in hand.
				Thread.sleep(2);
				write(log, "a " + message.id());
				try {
					message.ack();
					write(log, "A " + message.id());
				}
				catch (StaleDeliveryException ex) {
					write(log, "S " + message.id());
				}
				catch (RuntimeException ex) {
					write(log, "F " + message.id());
				}
			}, Integer.parseInt(args[4]));
			container.start();
			System.out.println("ready");
			System.out.flush();
			while (System.in.read() != -1) {
				// Runs until standard input closes (or the test kills it).
			}
			container.stop();
		}
		System.out.println("stopped");
		System.out.flush();
	}

	private static void workflow(QueueRegistry registry, String[] args) throws Exception {
		RedisQueue<Job> queue = registry.create(args[2], spec(Long.parseLong(args[5])), Job.class);
		try (Writer log = Files.newBufferedWriter(Path.of(args[3]), StandardCharsets.UTF_8)) {
			QueueListenerContainer<Job> container = registry.createContainer(queue, (message) -> {
				write(log, "D " + message.id() + " " + message.deliveryCount() + " " + System.nanoTime());
				Job job = message.payload();
				if (job.name().equals("fail")) {
					message.deadLetter("planned");
					write(log, "X " + message.id());
					return;
				}
				if (job.name().equals("parent")) {
					FlowChildren children = message.children();
					long sum = children.results(Integer.class).values().stream().mapToLong(Integer::longValue).sum();
					write(log, "P " + message.id() + " " + children.results(Integer.class).size() + " " + sum);
				}
				else if (job.name().equals("child")) {
					message.setResult(job.number());
				}
				Thread.sleep(1);
				write(log, "a " + message.id() + " " + System.nanoTime());
				try {
					message.ack();
					write(log, "A " + message.id());
				}
				catch (StaleDeliveryException ex) {
					write(log, "S " + message.id());
				}
				catch (RuntimeException ex) {
					write(log, "F " + message.id());
				}
			}, Integer.parseInt(args[4]));
			container.start();
			System.out.println("ready");
			System.out.flush();
			while (System.in.read() != -1) {
				// Runs until standard input closes (or the test kills it).
			}
			container.stop();
		}
		System.out.println("stopped");
		System.out.flush();
	}

	private static void hold(QueueRegistry registry, String[] args) throws Exception {
		RedisQueue<Job> queue = registry.create(args[2], spec(Long.parseLong(args[3])), Job.class);
		List<QueueMessage<Job>> messages = new ArrayList<>();
		while (messages.isEmpty()) {
			messages = queue.poll(1, Duration.ofSeconds(30));
		}
		System.out.println("got " + messages.get(0).id());
		System.out.flush();
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		try {
			messages.get(0).ack();
			System.out.println("ack=ok");
		}
		catch (StaleDeliveryException ex) {
			System.out.println("ack=stale");
		}
		System.out.flush();
	}

	private static void enqueue(QueueRegistry registry, String[] args) throws Exception {
		int keys = Integer.parseInt(args[2]);
		int rounds = Integer.parseInt(args[3]);
		System.out.println("ready");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			String[] go = line.split(" ");
			RedisQueue<Job> queue = registry.create(go[1], QueueSpec.defaults(), Job.class);
			Deduplication.Mode mode = Deduplication.Mode.valueOf(go[2]);
			Deduplication deduplication = new Deduplication(mode,
					mode.windowed() ? Duration.ofMillis(Long.parseLong(go[3])) : Duration.ZERO);
			Duration delay = Duration.ofMillis(Long.parseLong(go[4]));
			int base = Integer.parseInt(go[5]);
			StringBuilder out = new StringBuilder();
			for (int round = 0; round < rounds; round++) {
				for (int k = 0; k < keys; k++) {
					String id = "k" + k;
					EnqueueResult result = queue.tryEnqueue(QueueEntry.of(new Job(id, base + round)).withId(id)
						.withDelay(delay).withDeduplication(deduplication));
					out.append("R ").append(id).append(' ').append(base + round).append(' ')
						.append(result.outcome()).append(' ').append(result.id()).append('\n');
				}
			}
			System.out.print(out.append("done\n"));
			System.out.flush();
		}
	}

	private static QueueSpec spec(long visibilityMillis) {
		return QueueSpec.defaults().withVisibilityTimeout(Duration.ofMillis(visibilityMillis))
			.withPollInterval(Duration.ofMillis(200));
	}

	private static void write(Writer log, String line) throws IOException {
		synchronized (log) {
			log.write(line);
			log.write('\n');
			log.flush();
		}
	}

	static Process start(String... args) throws IOException {
		return WorkerJvm.of(QueueWorker.class, args).start();
	}

}
