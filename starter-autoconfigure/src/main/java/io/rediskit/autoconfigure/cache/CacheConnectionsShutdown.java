package io.rediskit.autoconfigure.cache;

import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.lock.LockRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Closes the connections of every {@link RedisKitCacheManager} bean (the invalidation subscription, the near
 * caches' tracking) when the context closes, in the lock family's phase ({@link LockRegistry#PHASE}): after the web
 * server and the queue listeners have finished their work, and before Spring Data Redis's connection factory stops
 * (phase 0) and shuts down the client those connections belong to. Left to each manager's {@code close()} at bean
 * destruction, they were closed by the factory first: every shutdown logged that the near caches were bypassed,
 * then Lettuce's "Connection is already closed" for each. The managers keep working after it, as after their own
 * {@code close()}; their {@code close()} at destruction then has nothing left to do.
 * <p>
 * Only a closing context closes them: a manager does not reopen its connections, so a {@code stop()} of a context
 * that may be started again leaves them as they are.
 */
final class CacheConnectionsShutdown implements SmartLifecycle, ApplicationListener<ContextClosedEvent>,
		ApplicationContextAware {

	private final ObjectProvider<RedisKitCacheManager> managers;

	private volatile ApplicationContext context;

	private volatile boolean closing;

	private volatile boolean running;

	CacheConnectionsShutdown(ObjectProvider<RedisKitCacheManager> managers) {
		this.managers = managers;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		// A child context's event reaches its parent's listeners too: only this context's close counts.
		if (event.getApplicationContext() == this.context) {
			this.closing = true;
		}
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		if (this.closing) {
			this.managers.orderedStream().forEach(RedisKitCacheManager::close);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

}
