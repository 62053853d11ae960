package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.CommandExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Whether the server offers native {@code BF.*} filters, asked once with {@code COMMAND INFO} (never by
 * sending a command and matching its error). The answer is kept; a failed detection (an outage) is asked again
 * on the next call.
 */
final class BloomCapabilities {

	private static final Log logger = LogFactory.getLog(BloomCapabilities.class);

	private final CommandExecutor commands;

	private final AtomicReference<@Nullable CompletableFuture<Boolean>> detected = new AtomicReference<>();

	BloomCapabilities(CommandExecutor commands) {
		this.commands = commands;
	}

	/** @return whether {@code BF.RESERVE}, {@code BF.INSERT}, {@code BF.MEXISTS} and {@code BF.INFO} exist */
	CompletionStage<Boolean> nativeFilters() {
		CompletableFuture<Boolean> current = this.detected.get();
		if (current != null) {
			return current;
		}
		CompletableFuture<Boolean> mine = new CompletableFuture<>();
		if (!this.detected.compareAndSet(null, mine)) {
			return this.detected.get();
		}
		byte[][] args = new byte[NativeBloomCommands.REQUIRED.size()][];
		for (int i = 0; i < args.length; i++) {
			args[i] = NativeBloomCommands.REQUIRED.get(i).getBytes(StandardCharsets.US_ASCII);
		}
		// COMMAND takes no key; the executor routes by its first argument, which any node answers alike.
		this.commands.<List<Object>>executeAsync("COMMAND", ReturnType.MULTI, "INFO".getBytes(StandardCharsets.US_ASCII), args)
			.whenComplete((reply, failure) -> {
				if (failure != null) {
					this.detected.compareAndSet(mine, null);
					mine.completeExceptionally(failure);
					return;
				}
				boolean all = reply != null && reply.size() == args.length && reply.stream().allMatch((info) -> info instanceof List<?>);
				logger.info("Redis " + (all ? "offers" : "does not offer") + " native Bloom filters (BF.*): "
						+ (all ? "filters in mode auto or native use them" : "filters use bitmaps"));
				mine.complete(all);
			});
		return mine;
	}

}
