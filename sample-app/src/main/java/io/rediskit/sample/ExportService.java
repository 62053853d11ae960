package io.rediskit.sample;

import java.time.Duration;

import io.rediskit.lock.DistributedSemaphore;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Exports that load the shared database: at most two run at once across every instance of the application
 * ({@code @DistributedSemaphore}); a third caller is answered 409 at once rather than queued.
 */
@Service
public class ExportService {

	private final Duration work;

	ExportService(@Value("${sample.export-duration:200ms}") Duration work) {
		this.work = work;
	}

	/**
	 * Runs one export while holding one of the two permits of {@code exports}.
	 * @param tenant whose data is exported
	 * @return what was exported
	 * @throws InterruptedException if interrupted while exporting
	 */
	@DistributedSemaphore(name = "exports", permits = 2, waitTime = "0s")
	public Export export(String tenant) throws InterruptedException {
		Thread.sleep(this.work.toMillis());
		return new Export(tenant, this.work.toMillis());
	}

	/**
	 * One finished export.
	 * @param tenant whose data was exported
	 * @param tookMillis how long it took
	 */
	public record Export(String tenant, long tookMillis) {
	}

}
