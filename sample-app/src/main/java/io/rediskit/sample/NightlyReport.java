package io.rediskit.sample;

import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.lock.ScheduledLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job every instance of the sample triggers, which must run once per trigger: the "nightly" report, every
 * {@code sample.report.interval} (10 s) so that it is seen running. Where another instance runs it, or ran it
 * less than {@code lockAtLeastFor} ago, the call is skipped silently and counted as
 * {@code rediskit.lock.acquire{lock="nightly-report",result="skipped"}} at {@code /actuator/metrics}. Each
 * instance's runs and skips of it are listed at {@code /actuator/rediskitlock} and, with the {@code console} profile,
 * on the console's Locks page with who has the job's lock now.
 */
@Component
public class NightlyReport {

	private static final Log logger = LogFactory.getLog(NightlyReport.class);

	private final AtomicLong runs = new AtomicLong();

	/**
	 * Builds the report. Lock-at-least (5 s) is above any clock skew between instances and below the interval, so
	 * a trigger that fires a little late elsewhere skips this slot; lock-at-most (1 min) frees the job should this
	 * instance die while running it.
	 */
	@Scheduled(fixedRateString = "${sample.report.interval:10s}")
	@ScheduledLock(name = "nightly-report", lockAtLeastFor = "5s", lockAtMostFor = "1m")
	public void run() {
		logger.info("Nightly report #" + this.runs.incrementAndGet() + " built on this instance");
	}

	/** @return how many runs this instance made */
	public long runs() {
		return this.runs.get();
	}

}
