package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ThrottledLog;
import org.jspecify.annotations.Nullable;

/**
 * What the entry points of the lock share, written once: the handles they hand out, the held locks, and through
 * {@link ShellEntryPoint} the shell wired around an {@link Engine} and the lifecycle. A registry subclass only
 * builds its engine and adds its own settings.
 * <p>
 * Handles are cheap, so {@code getLock} returns a new one each time and keeps no cache: client memory is bounded
 * by the locks held and waited for at a time, however many names are used.
 */
abstract class LockEntryPoint<E extends Engine> extends ShellEntryPoint<E> implements Locks {

	/**
	 * @param kind the registry's kind, in thread names, metrics' area and messages
	 * @param outageWarning what the throttled warning says while Redis cannot be reached
	 * @param engine builds the engine on the registry's guarded listeners and outage log
	 */
	LockEntryPoint(String kind, KeyNaming keyNaming, Duration watchdogTimeout, @Nullable Duration defaultLeaseTime,
			Duration defaultWaitTime, List<? extends LockListener> listeners, Clock clock, String outageWarning,
			BiFunction<Listeners<LockListener>, ThrottledLog, E> engine) {
		super(kind, keyNaming, watchdogTimeout, defaultLeaseTime, defaultWaitTime, listeners, clock, outageWarning,
				engine);
	}

	@Override
	public RedisLock getLock(String name) {
		requireName(name, "Lock");
		return newLock(name, name);
	}

	@Override
	public RedisLock getLock(String group, String key) {
		requireName(group, "Lock");
		Objects.requireNonNull(key, "key");
		return newLock(group + ":" + key, group);
	}

	private RedisLock newLock(String name, String group) {
		return new RedisLock(name, group, keys(name, group), parts());
	}

	/**
	 * The keys of a lock this entry point hands out; a member of the family whose keys live in an area of its
	 * own (a fair lock's, a read-write lock's) overrides it.
	 */
	LockScripts.Keys keys(String name, String group) {
		return LockScripts.Keys.of(getKeyNaming(), name, group);
	}

	@Override
	public List<HeldLock> heldLocks() {
		return parts().holds().describe();
	}

	@Override
	public Duration minimumLeaseTime() {
		return engine().minimumLeaseTime();
	}

}
