package io.rediskit.sample;

import java.time.Duration;

import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The semaphore and the count-down latch over HTTP.
 * <ul>
 * <li>{@code POST /exports/{tenant}}: runs an export under {@code @DistributedSemaphore} (two at once across
 * instances); 409 with a problem detail when both permits are taken.</li>
 * <li>{@code POST /latches/{name}?count=3}: starts a latch; {@code POST /latches/{name}/count-down} counts it
 * down from any instance; {@code GET /latches/{name}?waitMillis=2000} waits for it to open, at most that long (30 s at most).</li>
 * </ul>
 */
@RestController
public class CoordinationController {

	private final ExportService exports;

	private final LatchRegistry latches;

	CoordinationController(ExportService exports, LatchRegistry latches) {
		this.exports = exports;
		this.latches = latches;
	}

	@PostMapping("/exports/{tenant}")
	ExportService.Export export(@PathVariable String tenant) throws InterruptedException {
		return this.exports.export(tenant);
	}

	@PostMapping("/latches/{name}")
	LatchState start(@PathVariable String name, @RequestParam long count) {
		RedisCountDownLatch latch = latch(name);
		return new LatchState(name, latch.trySetCount(count), latch.count());
	}

	@PostMapping("/latches/{name}/count-down")
	LatchState countDown(@PathVariable String name) {
		return new LatchState(name, true, latch(name).countDown());
	}

	@GetMapping("/latches/{name}")
	LatchState await(@PathVariable String name, @RequestParam(defaultValue = "0") long waitMillis)
			throws InterruptedException {
		RedisCountDownLatch latch = latch(name);
		boolean open = latch.await(Duration.ofMillis(Math.min(waitMillis, 30_000)));
		return new LatchState(name, open, open ? 0 : latch.count());
	}

	private RedisCountDownLatch latch(String name) {
		// The name is part of the URL: a sample. An application keeps latch names to a fixed set (metrics tags).
		return this.latches.getCountDownLatch("sample:" + name);
	}

	/**
	 * A latch as the endpoints answer.
	 * @param name the latch
	 * @param done whether the call did what it asked (set, counted down, found open)
	 * @param count the count now: 0 when open, -1 when not set
	 */
	record LatchState(String name, boolean done, long count) {
	}

}
