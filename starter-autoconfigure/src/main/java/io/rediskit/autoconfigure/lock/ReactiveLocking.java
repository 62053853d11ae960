package io.rediskit.autoconfigure.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * after all. A lease that arrives as the subscription is cancelled is released by this class unless the
 * subscription took it ({@link Delivery}): Reactor does not promise to discard such a value (a {@code Mono.create}
 * sink that the cancellation has marked done, but not yet disposed, drops it as if it were a late signal), so the
 * discard hook is not relied on. So a cancelled subscription leaves no key behind. A release that cannot reach
 * Redis (an outage) after the publisher completed is not an error signal: the work stands, and the lease ends the
 * hold.
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
		Mono<Delivery> lease = Mono.<Delivery>create((sink) -> {
			CompletableFuture<Lease> acquiring = acquire.get();
			// The acquisition releases a lease it takes after being cancelled.
			sink.onCancel(() -> acquiring.cancel(false));
			acquiring.whenComplete((acquired, failure) -> {
				if (failure != null) {
					sink.error(acquireFailure.apply(AsyncResults.unwrap(failure)));
					return;
				}
				Delivery delivery = new Delivery(acquired);
				sink.success(delivery);
				// Delivered, the subscription took it before success returned; else it was dropped or discarded.
				delivery.releaseUnlessTaken();
			});
		});
		// Work that ran is not reported as failed: a release that cannot reach Redis leaves the key to its lease.
		Function<Delivery, Publisher<?>> release = (held) -> Mono.fromCompletionStage(held.lease::releaseAsync)
			.onErrorResume((ex) -> LeaseGuard.releaseUnreachable(AsyncResults.unwrap(ex)),
					(ex) -> Mono.empty());
		if (adapter.isMultiValue()) {
			return adapter.fromPublisher(Flux.usingWhen(lease, (held) -> Flux.from(run(adapter, call, held)), release,
					(held, error) -> release.apply(held), release));
		}
		return adapter.fromPublisher(Mono.usingWhen(lease, (held) -> Mono.from(run(adapter, call, held)), release,
				(held, error) -> release.apply(held), release));
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> run(ReactiveAdapter adapter, AsyncResults.Deferred call, Delivery delivery) {
		if (!delivery.take()) {
			return Mono.error(new IllegalStateException("The lease of '" + delivery.lease.lockName()
					+ "' arrived after its acquisition had given it back; the method did not run"));
		}
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		return (result != null) ? (Publisher<Object>) adapter.toPublisher(result) : Mono.empty();
	}

	/**
	 * A lease on its way to one subscription: taken by the subscription ({@code usingWhen}, which then releases it
	 * however the publisher ends), or released by the acquisition's callback once {@code sink.success} returned
	 * without the subscription taking it. Whichever comes first decides, so the lease is released once. Reactor
	 * delivers the value inside {@code sink.success} here (the subscription has asked for it before the acquisition
	 * starts), so a lease is never released under a method that runs.
	 */
	private static final class Delivery {

		final Lease lease;

		private final AtomicBoolean settled = new AtomicBoolean();

		Delivery(Lease lease) {
			this.lease = lease;
		}

		/** @return whether the subscription took the lease, which it then releases */
		boolean take() {
			return this.settled.compareAndSet(false, true);
		}

		void releaseUnlessTaken() {
			if (this.settled.compareAndSet(false, true)) {
				this.lease.releaseAsync();
			}
		}

	}

}
