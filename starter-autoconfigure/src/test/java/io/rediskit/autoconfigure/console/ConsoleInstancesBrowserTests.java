package io.rediskit.autoconfigure.console;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.rediskit.instance.InstanceRegistry;
import io.rediskit.lock.Lease;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.WorkerJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster-wide Instances page in headless Chromium, with two application instances on one real redis-server:
 * A serves the console (Spring MVC behind Spring Security); B is a second JVM without a web server whose
 * application name and lock name are markup. A's console shows B alive, and B's lock, permits and role with B's name, as
 * text, and on its Locks page the semaphore and the latch only B uses, with their figures in Redis and B's name; after B is killed with {@code kill -9}, A's console shows B gone and B's holds vanish when their leases end
 * (B's watchdog timeout is 6 s), after which A takes the lock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleInstancesBrowserTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	static final String HOSTILE_APPLICATION = "<img src=x onerror=window.__xss=1>bravo";

	static final String HOSTILE_LOCK = "orders:<script>window.__xss=1</script>";

	private static final String NO_MARKUP_RAN = "return document.querySelectorAll('main img, main script').length === 0"
			+ " && window.__xss === undefined;";

	private ConfigurableApplicationContext a;

	private Process b;

	private String bId;

	private ConsoleBrowser browser;

	private String base;

	private String console;

	@BeforeAll
	void start() throws Exception {
		ConsoleBrowser.assumeInstalled();
		this.a = new SpringApplicationBuilder(ConsoleBrowserTests.MvcApplication.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.main.banner-mode=off", "spring.application.name=alpha",
					"spring.data.redis.port=" + redis.server().port(), "redis-kit.console.enabled=true",
					"redis-kit.console.sample-interval=1s", "redis-kit.console.heartbeat.interval=1s")
			.run();
		this.base = "http://localhost:" + this.a.getEnvironment().getProperty("local.server.port");
		this.console = this.base + "/redis-kit/";
		this.b = WorkerJvm.of(ConsoleInstanceWorker.class, Integer.toString(redis.server().port()), HOSTILE_APPLICATION,
				HOSTILE_LOCK).start();
		BufferedReader out = new BufferedReader(new InputStreamReader(this.b.getInputStream(), StandardCharsets.UTF_8));
		String line = out.readLine();
		while (line != null && !line.startsWith("ready ")) {
			line = out.readLine();
		}
		assertThat(line).as("the worker's ready line").isNotNull();
		this.bId = line.substring("ready ".length());
		this.browser = ConsoleBrowser.start();
	}

	@AfterAll
	void stop() throws Exception {
		if (this.b != null) {
			this.b.destroyForcibly().waitFor();
		}
		if (this.browser != null) {
			this.browser.close();
		}
		if (this.a != null) {
			this.a.close();
		}
	}

	@Test
	@Order(1)
	void aLockHeldByAnotherInstanceShowsWithThatInstancesNameAsText() {
		this.browser.signIn(this.base, "vic");
		this.browser.open(this.console, "instances");
		String bRow = "#instances tr[data-id='" + this.bId + "']";
		this.browser.await("B listed alive", () -> "true".equals(attribute(bRow, "data-alive")));
		assertThat(this.browser.text(bRow + " .name")).startsWith(HOSTILE_APPLICATION + "@").doesNotContain("this one");
		String self = this.a.getBean(InstanceRegistry.class).self().id();
		assertThat(this.browser.text("#instances tr[data-id='" + self + "'] .name"))
			.startsWith("alpha@").endsWith("(this one)");
		String held = "#cluster-holds tr[data-instance='" + this.bId + "']";
		this.browser.await("B's lock, permits and role's lock listed", () -> Long.valueOf(3)
			.equals(this.browser.script("return document.querySelectorAll(arguments[0]).length;", held)));
		// With redis-kit.console.show-payloads at its default, names given in code are hidden; kinds and holders are
		// not (the rows in the order of their names: "leader:<role>", the hostile lock, "pool").
		List<String> rows = this.browser.script("return Array.from(document.querySelectorAll(arguments[0]))"
				+ ".map(function (r) { return r.querySelector('.name').textContent + ' ' + r.children[1].textContent; });",
				held);
		assertThat(rows).containsExactly("(hidden) single", "(hidden) single", "(hidden) semaphore");
		assertThat(this.browser.text("#page-instances")).doesNotContain(HOSTILE_LOCK);
		assertThat(this.browser.text(held + " .holder")).startsWith(HOSTILE_APPLICATION + "@").doesNotContain("gone");
		String leader = "#leaders tr[data-role='" + ConsoleInstanceWorker.ROLE + "']";
		this.browser.await("B's role listed", () -> this.bId.equals(attribute(leader, "data-instance")));
		assertThat(this.browser.text(leader + " .holder")).startsWith(HOSTILE_APPLICATION + "@").doesNotContain("gone");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		this.browser.screenshot("instances");
	}

	@Test
	@Order(2)
	void aSemaphoreAndALatchUsedOnlyByAnotherInstanceShowOnThisOnesLocksPageWithTheirFiguresAndUser() {
		this.browser.open(this.console, "locks");
		// With redis-kit.console.show-payloads at its default, names given in code are hidden; the figures and the
		// instances that use each are not.
		String pool = "#semaphores tbody tr";
		this.browser.await("B's semaphore listed", () -> "2".equals(this.browser.text(pool + " .held")));
		assertThat(this.browser.text(pool + " .name")).isEqualTo("(hidden)");
		assertThat(this.browser.text(pool + " .total")).isEqualTo("3");
		assertThat(this.browser.text(pool + " .used-by")).startsWith(HOSTILE_APPLICATION + "@");
		String latch = "#latches tbody tr";
		this.browser.await("B's latch listed", () -> "5".equals(this.browser.text(latch + " .count")));
		assertThat(this.browser.text(latch + " .name")).isEqualTo("(hidden)");
		assertThat(this.browser.text(latch + " .used-by")).startsWith(HOSTILE_APPLICATION + "@");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		// Read without handing out a handle: A's own registries still list neither, so A's heartbeat names neither.
		assertThat(this.a.getBean(SemaphoreRegistry.class).semaphores()).isEmpty();
		assertThat(this.a.getBean(LatchRegistry.class).latches()).isEmpty();
		this.browser.screenshot("locks-cluster");
	}

	@Test
	@Order(3)
	void aKilledInstanceIsShownGoneAndItsHoldsVanishWhenTheirLeasesEnd() throws Exception {
		this.b.destroyForcibly().waitFor();
		this.browser.open(this.console, "instances");
		String bRow = "#instances tr[data-id='" + this.bId + "']";
		String held = "#cluster-holds tr[data-instance='" + this.bId + "']";
		// B is shown gone after three silent 1 s heartbeats; its leases (a 6 s watchdog timeout) end a little later.
		this.browser.await("B's holds gone", () -> Long.valueOf(0)
			.equals(this.browser.script("return document.querySelectorAll(arguments[0]).length;", held)));
		this.browser.await("B shown gone", () -> "false".equals(attribute(bRow, "data-alive")));
		assertThat(this.browser.text(bRow)).contains("gone");
		assertThat(this.browser.text("#leaders tr[data-role='" + ConsoleInstanceWorker.ROLE + "'] .holder")).endsWith("(gone)");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		// Redis agrees: the lock's lease ended with its holder, so A takes it.
		try (Lease lease = this.a.getBean(LockRegistry.class).getLock(HOSTILE_LOCK).acquire(Duration.ofSeconds(30))) {
			assertThat(lease.fencingToken()).isPositive();
		}
	}

	private String attribute(String selector, String name) {
		return this.browser.script("var e = document.querySelector(arguments[0]);"
				+ " return e ? e.getAttribute(arguments[1]) : null;", selector, name);
	}

}
