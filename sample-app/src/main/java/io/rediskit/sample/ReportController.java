package io.rediskit.sample;

import org.springframework.context.annotation.Conditional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /reports/{id}/run}: 200 with the run, or 409 with a problem detail while another request runs the
 * same report; present only when Redlock is configured (the {@code redlock} profile).
 */
@RestController
@RequestMapping("/reports")
@Conditional(RedlockConfigured.class)
public class ReportController {

	private final ReportService reports;

	ReportController(ReportService reports) {
		this.reports = reports;
	}

	@PostMapping("/{id}/run")
	ReportService.ReportRun run(@PathVariable String id) throws InterruptedException {
		return this.reports.run(id);
	}

}
