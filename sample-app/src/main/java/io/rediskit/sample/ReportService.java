package io.rediskit.sample;

import java.time.Duration;

import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.RedlockRegistry;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Conditional;
import org.springframework.stereotype.Service;

/**
 * Runs reports under a Redlock, so that a run survives the loss of two of five Redis servers; present only when
 * Redlock is configured.
 */
@Service
@Conditional(RedlockConfigured.class)
public class ReportService {

	private final RedlockRegistry redlock;

	private final Duration runTime;

	ReportService(RedlockRegistry redlock, @Value("${sample.payment-delay:300ms}") Duration runTime) {
		this.redlock = redlock;
		this.runTime = runTime;
	}

	/**
	 * Holds the Redlock {@code reports:<reportId>} on a majority of the servers while the report runs; a second
	 * run of the same report meanwhile gets {@code LockNotAcquiredException}, answered with 409.
	 * @param reportId the report, straight from the URL: the key expression treats it as data
	 * @return the run, with the fencing token a report store would check
	 * @throws InterruptedException if interrupted while running
	 */
	@DistributedLock(name = "reports", key = "#reportId", redlock = true)
	public ReportRun run(String reportId) throws InterruptedException {
		long token = this.redlock.getLock("reports", reportId).fencingToken();
		Thread.sleep(this.runTime.toMillis());
		return new ReportRun(reportId, token, this.redlock.nodeCount(), this.redlock.quorum());
	}

	/**
	 * One report run.
	 * @param report the report
	 * @param fencingToken the Redlock's fencing token
	 * @param nodes how many servers the Redlock spans
	 * @param quorum how many of them hold it
	 */
	public record ReportRun(String report, long fencingToken, int nodes, int quorum) {
	}

}
