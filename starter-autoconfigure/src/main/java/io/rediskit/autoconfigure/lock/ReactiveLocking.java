package io.rediskit.autoconfigure.lock;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.lock.Lease;
import io.rediskit.lock.RedisLock;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapter;

/**
 * The reactive side of {@link DistributedLockInterceptor}, loaded only with Reactor on the class path. Each
 * subscription acquires a lease without blocking ({@link RedisLock#acquireAsync}), then calls the method and
 * subscribes to its publisher, and releases the lease ({@link Lease#releaseAsync()}) when that
 * publisher completes, fails or is cancelled, on whichever thread that happens.
 * <p>
 * A cancellation while the lease is being acquired cancels the acquisition, which releases a lease it takes
 * after all; a lease delivered as the subscription is cancelled is released as Reactor discards it. So a
 * cancelled subscription leaves no key behind. A release that cannot reach Redis (an outage) after the publisher
 * completed is not an error signal: the work stands, and the lease ends the hold.
 */
final class ReactiveLocking {

	private ReactiveLocking() {
	}

	/**
	 * @param adapter the adapter of the method's return type
	 * @param acquire starts the acquisition, whose future cancels it
	 * @param acquireFailure turns a failed acquisition into the error the subscriber sees
	 * @param call the method
	 * @return the method's reactive type
	 */
	static Object lock(ReactiveAdapter adapter, Supplier<CompletableFuture<Lease>> acquire,
			Function<Throwable, Throwable> acquireFailure, AsyncResults.Deferred call) {
		Mono<Lease> lease = Mono.<Lease>create((sink) -> {
			CompletableFuture<Lease> acquiring = acquire.get();
			// The acquisition releases a lease it takes after being cancelled.
			sink.onCancel(() -> acquiring.cancel(false));
			acquiring.whenComplete((acquired, failure) -> {
				if (failure != null) {
					sink.error(acquireFailure.apply(AsyncResults.unwrap(failure)));
				}
				else {
					sink.success(acquired);
				}
			});
		}).doOnDiscard(Lease.class, Lease::releaseAsync);
		// Work that ran is not reported as failed: a release that cannot reach Redis leaves the key to its lease.
		Function<Lease, Publisher<?>> release = (held) -> Mono.fromCompletionStage(held::releaseAsync)
			.onErrorResume((ex) -> DistributedLockInterceptor.releaseUnreachable(AsyncResults.unwrap(ex)),
					(ex) -> Mono.empty());
		if (adapter.isMultiValue()) {
			return adapter.fromPublisher(Flux.usingWhen(lease, (held) -> Flux.from(run(adapter, call)), release,
					(held, error) -> release.apply(held), release));
		}
		return adapter.fromPublisher(Mono.usingWhen(lease, (held) -> Mono.from(run(adapter, call)), release,
				(held, error) -> release.apply(held), release));
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> run(ReactiveAdapter adapter, AsyncResults.Deferred call) {
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		return (result != null) ? (Publisher<Object>) adapter.toPublisher(result) : Mono.empty();
	}

}
