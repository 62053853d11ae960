package io.rediskit.benchmarks.queue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.queue.QueueRegistry;

/**
 * {@code queue.drain} of {@link QueueBenchmark} alone, the listener container against its same-script floor at
 * concurrency 8 and 32, without Redisson and without the other queue scenarios ({@link QueueDrainScenarios}):
 * for comparing builds of the container, alternated, in a fifth of the {@code queue} run's time. A third drain runs
 * concurrency 8 with its prefetch raised to claim 160 at a time, as concurrency 32 does, against the floor at that
 * batch: what the setting does for a burst ({@link QueueDrainScenarios#RAISED_PREFETCH_PER_HANDLER}). Writes
 * {@code queue-drain.json}.
 */
public final class QueueDrainBenchmark implements Benchmark {

	@Override
	public String name() {
		return "queue-drain";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		QueueRegistry registry = QueueBenchmark.registry(context);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("environment", context.environment());
		try {
			json.putAll(new QueueDrainScenarios(context, registry, QueueBenchmark.NAMING, true).run());
			Path directory = context.options().outputDirectory();
			Files.createDirectories(directory);
			JsonWriter.write(directory.resolve(name() + ".json"), json);
		}
		finally {
			registry.close();
		}
	}

}
