package io.rediskit.queue;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.Background;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * Hands out {@link RedisQueue}s by name, and {@link QueueListenerContainer}s that consume them; the entry point
 * of the queue. Create one per application and share it (the Spring Boot starter registers one as a bean).
 * <p>
 * Queues configured (in Spring Boot, under {@code redis-kit.queue.queues}) are served by
 * {@link #get(String, Class)}, which picks up a changed configuration (its messages are kept);
 * {@link #create(String, QueueSpec, Class)} defines one in code. A name has one spec, whatever payload types its
 * handles use: {@code create} with the spec a name already has returns a handle on it, and another spec for a
 * configured or created name throws {@link SpecConflictException} (see {@link NamedSpecs} for the rule).
 * <p>
 * <b>Keys.</b> {@code <prefix>queue:{<name>}:delayed|ready|in-flight|dead|meta|payloads|reasons|settled}, all
 * in one hash slot, plus {@code :claim:<request>} records that expire after the visibility timeout and the
 * {@code :wake} channel. The message keys carry no TTL: they are the queue's data and vanish when empty; the
 * settled tokens expire after {@link QueueScripts#SETTLED_RETENTION 10 minutes}, and at most the latest
 * {@link QueueScripts#SETTLED_MOST 100,000} are kept.
 * <p>
 * <b>Lifecycle.</b> The constructor starts nothing; the wake-up subscription is opened by the first consumer
 * that waits and closed by {@link #stop()}. While stopped, consumers poll.
 */
public class QueueRegistry implements SmartLifecycle, AutoCloseable {

	/** The lifecycle phase: before the containers start and after they stopped. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(QueueRegistry.class);

	private final KeyNaming keyNaming;

	private final QueueParts parts;

	private final NamedSpecs<QueueSpec, QueueState> queues;

	private volatile boolean running;

	private @Nullable Background given;

	private @Nullable Background own;

	/**
	 * A registry of queues created in code, with default key naming and no listeners.
	 * @param connectionFactory the application's Redis connections
	 * @param jsonMapper writes and reads payloads; must not have default typing
	 */
	public QueueRegistry(RedisConnectionFactory connectionFactory, JsonMapper jsonMapper) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, KeyNaming.defaults(), jsonMapper, List.of(),
				(name) -> null);
	}

	/**
	 * Creates a registry. It starts nothing.
	 * @param scripts runs the queue scripts
	 * @param connectionFactory for the wake-up subscription
	 * @param keyNaming names the keys
	 * @param jsonMapper writes and reads payloads; must not have default typing
	 * @param listeners told of queue events, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@code get}, so it must be cheap
	 * @throws IllegalArgumentException if the mapper has default typing enabled
	 */
	public QueueRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			JsonMapper jsonMapper, List<? extends QueueEventListener> listeners,
			ConfiguredSpecs<QueueSpec> configuredSpecs) {
		Objects.requireNonNull(scripts, "scripts must not be null");
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		Objects.requireNonNull(jsonMapper, "jsonMapper must not be null");
		this.queues = new NamedSpecs<>("queue", "redis-kit.queue.queues",
				Objects.requireNonNull(configuredSpecs, "configuredSpecs must not be null"), this::newState,
				(state, spec) -> {
					state.setSpec(spec);
					return state;
				});
		ThrottledLog outages = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Queues cannot reach Redis; queue calls fail after the command timeout and consumers keep polling");
		this.parts = new QueueParts(new QueueScripts(scripts), new PayloadCodec(jsonMapper),
				Listeners.of("queue", listeners), outages, new QueueSignals(connectionFactory, this::background));
	}

	/**
	 * Gives the threads the registry runs on: the containers' pollers and watchdogs run their short, non-blocking
	 * tasks on its scheduler (unless a container is given its own), and the wake-up subscription's connection is
	 * opened on its executor. Without one the registry makes threads of its own when first needed
	 * ({@link Background#standalone(String)}) and closes them on {@link #close()}. Set it before the first container
	 * starts; the registry leaves the threads it is given running.
	 * @param background the application's, shared by every primitive, or {@code null} for threads of the
	 * registry's own
	 */
	public synchronized void setBackground(@Nullable Background background) {
		this.given = background;
	}

	/**
	 * Makes every enqueue ({@link RedisKitObservation#QUEUE_ENQUEUE}) and every message a container's handler runs
	 * ({@link RedisKitObservation#QUEUE_HANDLE}) an observation; the enqueuing observation's trace context travels
	 * in the message's headers and the handling observation continues it. Applies to queues made before too.
	 * @param observations where the observations are made; {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.parts.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	/** @return the given threads, or the registry's own, made on first use */
	synchronized Background background() {
		if (this.given != null) {
			return this.given;
		}
		if (this.own == null) {
			this.own = Background.standalone("queue");
		}
		return this.own;
	}

	/** @return the scheduler of the containers that were given none */
	TaskScheduler taskScheduler() {
		return background().scheduler();
	}

	/**
	 * The queue of a name, with its configured spec applied if it changed.
	 * @param <T> the payload type
	 * @param name a configured name, or one passed to {@link #create}
	 * @param payloadType the payload type, read from JSON
	 * @return a handle on the queue
	 * @throws IllegalArgumentException if no queue has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public <T> RedisQueue<T> get(String name, Class<T> payloadType) {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(payloadType, "payloadType must not be null");
		return new ScriptedRedisQueue<>(this.queues.get(name), payloadType, this.parts);
	}

	/**
	 * Creates a queue, or returns a handle on the queue of that name if it has this spec (configured or created
	 * before).
	 * @param <T> the payload type
	 * @param name 1 to 64 letters, digits, {@code -} or {@code _}
	 * @param spec how it delivers
	 * @param payloadType the payload type, read from JSON
	 * @return a handle on the queue
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public <T> RedisQueue<T> create(String name, QueueSpec spec, Class<T> payloadType) {
		Objects.requireNonNull(spec, "spec must not be null");
		Objects.requireNonNull(payloadType, "payloadType must not be null");
		return new ScriptedRedisQueue<>(this.queues.create(name, spec), payloadType, this.parts);
	}

	/**
	 * A container that consumes a queue with a handler; start it, or let the Spring container start it.
	 * @param <T> the payload type
	 * @param queue the queue, from this registry
	 * @param handler processes each delivery
	 * @param concurrency most messages handled at once, 1 to 1000
	 * @return the container, not started
	 */
	public <T> QueueListenerContainer<T> createContainer(RedisQueue<T> queue, QueueHandler<T> handler,
			int concurrency) {
		if (!(queue instanceof ScriptedRedisQueue<T> scripted) || scripted.parts() != this.parts) {
			throw new IllegalArgumentException("The queue must come from this registry");
		}
		return new QueueListenerContainer<>(scripted, handler, concurrency, this::taskScheduler);
	}

	/**
	 * Pauses one listener of a queue on every instance: the containers of the queue with that
	 * {@link QueueListenerContainer#setListenerId listener id} claim nothing until it is resumed, while what they
	 * hold finishes; the other listeners of the queue go on. Kept in Redis, restarts included.
	 * {@link RedisQueue#pause()} pauses the whole queue.
	 * @param queue the queue's name
	 * @param listenerId the listener's id ({@code <bean>.<method>} for a {@code @QueueListener} without one)
	 * @throws IllegalArgumentException if no queue has the name
	 */
	public void pauseListener(String queue, String listenerId) {
		Stages.join(pauseListenerAsync(queue, listenerId));
	}

	/**
	 * {@link #pauseListener} without blocking.
	 * @param queue the queue's name
	 * @param listenerId the listener's id
	 * @return completed when paused
	 */
	public CompletionStage<Void> pauseListenerAsync(String queue, String listenerId) {
		return scripted(queue).pause(QueueScripts.Keys.listenerPause(checkListener(listenerId)));
	}

	/**
	 * Resumes one listener of a queue on every instance; a pause of the whole queue stays.
	 * @param queue the queue's name
	 * @param listenerId the listener's id
	 */
	public void resumeListener(String queue, String listenerId) {
		Stages.join(resumeListenerAsync(queue, listenerId));
	}

	/**
	 * {@link #resumeListener} without blocking.
	 * @param queue the queue's name
	 * @param listenerId the listener's id
	 * @return completed when resumed
	 */
	public CompletionStage<Void> resumeListenerAsync(String queue, String listenerId) {
		return scripted(queue).resume(QueueScripts.Keys.listenerPause(checkListener(listenerId)));
	}

	/**
	 * @param queue the queue's name
	 * @param listenerId the listener's id
	 * @return whether the listener is paused on its own, as Redis says now
	 */
	public boolean isListenerPaused(String queue, String listenerId) {
		return Stages.join(scripted(queue).isPaused(QueueScripts.Keys.listenerPause(checkListener(listenerId))));
	}

	private ScriptedRedisQueue<Object> scripted(String queue) {
		return (ScriptedRedisQueue<Object>) get(queue, Object.class);
	}

	private static String checkListener(String listenerId) {
		Objects.requireNonNull(listenerId, "listenerId must not be null");
		if (listenerId.isEmpty() || listenerId.length() > 200) {
			throw new IllegalArgumentException("listenerId must be 1 to 200 characters, was " + listenerId.length());
		}
		return listenerId;
	}

	/** @return the names of the queues used so far */
	public Set<String> names() {
		return this.queues.names();
	}

	/** @return the key naming this registry uses */
	public KeyNaming getKeyNaming() {
		return this.keyNaming;
	}

	private QueueState newState(String name, QueueSpec spec) {
		return new QueueState(name, QueueScripts.Keys.of(this.keyNaming, name), spec);
	}

	/** Marks the registry running; the subscription opens when the first consumer waits. */
	@Override
	public void start() {
		this.running = true;
	}

	/** Closes the wake-up subscription; consumers that keep running poll, and a later wait subscribes again. */
	@Override
	public void stop() {
		this.running = false;
		this.parts.signals.stop();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/** Closes the subscription for good. */
	@Override
	public void close() {
		this.running = false;
		this.parts.signals.close();
		Background closing;
		synchronized (this) {
			closing = this.own;
			this.own = null;
		}
		if (closing != null) {
			closing.close();
		}
	}

}
