package io.rediskit.sample;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.rediskit.lock.Lease;
import io.rediskit.lock.ReadWriteLock;
import io.rediskit.lock.ReadWriteLockRegistry;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/price-book/{sku}} reads a price under the {@code price-book} read lock, alongside every other
 * reader; {@code PUT /api/price-book/{sku}?cents=} writes it under the write lock, alone, and answers with the
 * write's fencing token. While the lock cannot be had within the wait, the answer is 409 (the lock's web handler).
 * The prices live in this instance's memory: the lock is the point, not the store.
 */
@RestController
@RequestMapping("/api/price-book")
public class PriceBookController {

	private final ReadWriteLock lock;

	private final Map<String, Long> cents = new ConcurrentHashMap<>();

	PriceBookController(ReadWriteLockRegistry readWriteLocks) {
		this.lock = readWriteLocks.getReadWriteLock("price-book");
	}

	@GetMapping("/{sku}")
	public Map<String, Object> read(@PathVariable String sku) {
		try (Lease read = this.lock.readLock().acquire(Duration.ofSeconds(2))) {
			return Map.of("sku", sku, "cents", this.cents.getOrDefault(sku, 0L), "readToken", read.fencingToken());
		}
	}

	@PutMapping("/{sku}")
	public Map<String, Object> write(@PathVariable String sku, @RequestParam long cents) {
		try (Lease write = this.lock.writeLock().acquire(Duration.ofSeconds(5))) {
			this.cents.put(sku, cents);
			return Map.of("sku", sku, "cents", cents, "writeToken", write.fencingToken());
		}
	}

}
