package io.rediskit.support;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A script executor that records, for every script dispatched, which observation was in scope on the dispatching
 * thread (what a driver's tracing makes the command span's parent), and which was in scope on the thread that
 * completed the call (none, unless a scope leaked; a call already complete when it is watched is not counted, as
 * its callback runs on the dispatching thread inside the dispatch's scope). Deterministic: no tracer, no timing.
 */
public final class ScopeRecordingScripts implements ScriptExecutor {

	/** What was current at a dispatch: the observation's name, or {@code "none"}. */
	public final List<String> dispatched = new CopyOnWriteArrayList<>();

	/**
	 * What was current on the thread that completed a call, when the call completed; nothing for a call complete
	 * before it was watched (on a loaded machine, any of them may be).
	 */
	public final List<String> completed = new CopyOnWriteArrayList<>();

	private final ScriptExecutor delegate;

	private final ObservationRegistry registry;

	public ScopeRecordingScripts(ScriptExecutor delegate, ObservationRegistry registry) {
		this.delegate = delegate;
		this.registry = registry;
	}

	private String current() {
		Observation current = this.registry.getCurrentObservation();
		return (current != null) ? current.getContext().getName() : "none";
	}

	private <S extends CompletionStage<?>> S watched(S stage) {
		// A reply that came before this callback is attached runs it here and now, on the dispatching thread inside the
		// dispatch's own scope: not a completion to check (a loaded machine makes that common). Any later one is.
		Thread dispatching = Thread.currentThread();
		AtomicBoolean attaching = new AtomicBoolean(true);
		stage.whenComplete((value, failure) -> {
			if (!attaching.get() || Thread.currentThread() != dispatching) {
				this.completed.add(current());
			}
		});
		attaching.set(false);
		return stage;
	}

	@Override
	public <T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
		this.dispatched.add(current());
		return this.delegate.execute(script, returnType, numKeys, keysAndArgs);
	}

	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(LuaScript script, ReturnType returnType, int numKeys,
			byte[]... keysAndArgs) {
		this.dispatched.add(current());
		return watched(this.delegate.executeAsync(script, returnType, numKeys, keysAndArgs));
	}

	@Override
	public <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> executeAndWaitAsync(LuaScript script,
			ReturnType returnType, ReplicaWait wait, int numKeys, byte[]... keysAndArgs) {
		this.dispatched.add(current());
		return watched(this.delegate.executeAndWaitAsync(script, returnType, wait, numKeys, keysAndArgs));
	}

	@Override
	public boolean isNative() {
		return this.delegate.isNative();
	}

}
