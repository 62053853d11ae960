package io.rediskit.autoconfigure.metrics;

import java.util.EnumMap;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import org.jspecify.annotations.Nullable;

/**
 * Derives the meters of the operation-shaped areas from their observations ({@code rediskit.<area>.operation}),
 * under the names and tags their pages document, so that one instrumentation feeds spans and meters alike. Each
 * call observed is recorded when its observation stops:
 * <ul>
 * <li>{@code rediskit.counter.bitmap.operations} (timer; {@code name}, {@code operation} such as check-in, streak,
 * mark-active, retention or increment, {@code result} = success | error | refused): calendar, daily activity and
 * packed counter calls.</li>
 * <li>{@code rediskit.counter.operations} (timer; {@code counter}, {@code operation} = add | count | union,
 * {@code result} = success | error | refused): unique counter calls.</li>
 * <li>{@code rediskit.geo.operations} (timer; {@code index}, {@code operation} = put | put-all | remove | position |
 * distance | nearby | sweep, {@code outcome} = success | failure): geo index operations.</li>
 * <li>{@code rediskit.id.blocks} (timer; {@code generator}, {@code result} = success | error): id blocks
 * reserved.</li>
 * <li>{@code rediskit.leaderboard.operations} (timer; {@code leaderboard}, {@code operation} = write | increment |
 * read | post | vote, {@code result} = success | error): leaderboard calls.</li>
 * <li>{@code rediskit.recentitems.operations} (timer; {@code list}, {@code operation} = view | recent | trending |
 * forget, {@code result} = success | error): recent-items calls.</li>
 * <li>{@code rediskit.bloom.operations} (counter; {@code filter}, {@code operation} = add | contains,
 * {@code result} = error): Bloom filter calls that failed. The items added and looked up, by result, are counted
 * by {@code MicrometerBloomFilterListener} from the filter's listener events, which carry them.</li>
 * </ul>
 * The handler sees only redis-kit's operation observations, and only those the application's
 * {@code ObservationRegistry} makes: with no registry (or one switched off) nothing is recorded.
 */
public class MicrometerOperationMeters implements ObservationHandler<Observation.Context> {

	private static final Map<RedisKitObservation, Meter> METERS = meters();

	private final MeterRegistry registry;

	/**
	 * @param registry where the meters go
	 */
	public MicrometerOperationMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof RedisKitContext observed && METERS.containsKey(observed.observation());
	}

	@Override
	public void onStart(Observation.Context context) {
		context.put(Timer.Sample.class, Timer.start(this.registry));
	}

	@Override
	public void onStop(Observation.Context context) {
		RedisKitContext observed = (RedisKitContext) context;
		Meter meter = METERS.get(observed.observation());
		Timer.Sample sample = context.get(Timer.Sample.class);
		String outcome = observed.outcome();
		Tags tags = Tags.of(meter.nameTag(), observed.configuredName());
		String operation = observed.detail();
		if (meter.operationTag() && operation != null) {
			tags = tags.and("operation", operation);
		}
		if (meter.errorsOnly()) {
			if (ObservedCalls.ERROR.equals(outcome)) {
				Counter.builder(meter.name())
					.description(meter.description())
					.tags(tags)
					.tag(meter.outcomeTag(), outcome)
					.register(this.registry)
					.increment();
			}
			return;
		}
		String value = (ObservedCalls.ERROR.equals(outcome) && meter.errorValue() != null) ? meter.errorValue()
				: outcome;
		Timer timer = Timer.builder(meter.name())
			.description(meter.description())
			.tags(tags)
			.tag(meter.outcomeTag(), value)
			.register(this.registry);
		if (sample != null) {
			sample.stop(timer);
		}
	}

	private static Map<RedisKitObservation, Meter> meters() {
		Map<RedisKitObservation, Meter> meters = new EnumMap<>(RedisKitObservation.class);
		meters.put(RedisKitObservation.BITMAP_OPERATION, new Meter("rediskit.counter.bitmap.operations",
				"Check-in calendar, daily activity and packed counter calls and their latency", "name", true,
				"result", null, false));
		meters.put(RedisKitObservation.COUNTER_OPERATION, new Meter("rediskit.counter.operations",
				"Unique counter calls and their latency", "counter", true, "result", null, false));
		meters.put(RedisKitObservation.GEO_OPERATION, new Meter("rediskit.geo.operations",
				"Geo index operations, by operation and outcome", "index", true, "outcome", "failure", false));
		meters.put(RedisKitObservation.ID_OPERATION, new Meter("rediskit.id.blocks",
				"Id blocks reserved and their latency", "generator", false, "result", null, false));
		meters.put(RedisKitObservation.RANK_OPERATION, new Meter("rediskit.leaderboard.operations",
				"Leaderboard calls and their latency", "leaderboard", true, "result", null, false));
		meters.put(RedisKitObservation.RECENT_OPERATION, new Meter("rediskit.recentitems.operations",
				"Recent items calls and their latency", "list", true, "result", null, false));
		meters.put(RedisKitObservation.BLOOM_OPERATION, new Meter("rediskit.bloom.operations",
				"Items added to or looked up in a Bloom filter, by result", "filter", true, "result", null, true));
		return meters;
	}

	/**
	 * One area's meter, as its page documents it.
	 * @param name the meter's name
	 * @param description its description
	 * @param nameTag the tag of the configured name
	 * @param operationTag whether it is tagged with the operation
	 * @param outcomeTag the tag of the outcome
	 * @param errorValue the outcome tag's value for {@code error} where the area says it otherwise, or {@code null}
	 * @param errorsOnly whether it counts failed calls only (a counter), not every call (a timer)
	 */
	private record Meter(String name, String description, String nameTag, boolean operationTag, String outcomeTag,
			@Nullable String errorValue, boolean errorsOnly) {
	}

}
