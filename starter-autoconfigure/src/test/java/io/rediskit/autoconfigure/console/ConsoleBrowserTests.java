package io.rediskit.autoconfigure.console;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoPoint;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.ScheduledLock;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.queue.QueueBatch;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueuePriority;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RecurringJobSpec;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RedisQueue;
import io.rediskit.rank.Leaderboard;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.recent.RecentItems;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in headless Chromium, against a real redis-server and a real Tomcat (Spring MVC behind Spring
 * Security's form login and CSRF protection), plus one WebFlux smoke test on Reactor Netty, all in one browser
 * session. The data includes markup where users control text (a lock name, a key, a payload, a dead letter's
 * reason): it must show as text, with no element made of it and no script run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	static final String HOSTILE = "<img src=x onerror=window.__xss=1>";

	// The application's name is data too: the Queues page names the instance that took a recurring slot by it.
	static final String HOSTILE_APPLICATION = "<img src=x onerror=window.__xss=2>shop";

	// A job's name follows the name rule (no markup can reach the page through it); the lock name above is data.
	static final String JOB = "nightly-digest";

	// A recurring job whose first slot is an hour away: nothing is enqueued but what the console triggers.
	static final String REPORT = "hourly-report";

	private static final String NO_MARKUP_RAN = "return document.querySelectorAll('main img, main script').length === 0"
			+ " && window.__xss === undefined;";

	private ConfigurableApplicationContext mvc;

	private ConsoleBrowser browser;

	private String base;

	private String console;

	private Lease hostileLease;

	private Lease permits;

	private RedisQueue<Object> orders;

	private RedisQueue<Object> emails;

	@BeforeAll
	void start() throws Exception {
		ConsoleBrowser.assumeInstalled();
		this.mvc = run(MvcApplication.class, WebApplicationType.SERVLET);
		this.base = "http://localhost:" + this.mvc.getEnvironment().getProperty("local.server.port");
		this.console = this.base + "/redis-kit/";
		seed(this.mvc);
		this.browser = ConsoleBrowser.start();
	}

	@AfterAll
	void stop() throws Exception {
		if (this.hostileLease != null) {
			this.hostileLease.close();
		}
		if (this.permits != null) {
			this.permits.close();
		}
		if (this.browser != null) {
			this.browser.close();
		}
		if (this.mvc != null) {
			this.mvc.close();
		}
	}

	// Arguments override the defaults below, as command-line arguments do.
	static ConfigurableApplicationContext run(Class<?> application, WebApplicationType type, String... arguments) {
		return new SpringApplicationBuilder(application).web(type)
			.properties("server.port=0", "spring.main.banner-mode=off",
					"spring.data.redis.port=" + redis.server().port(), "redis-kit.console.enabled=true",
					"redis-kit.console.actions.enabled=true", "redis-kit.console.show-payloads=true",
					"redis-kit.console.sample-interval=1s", "redis-kit.queue.queues.orders.max-deliveries=3",
					"redis-kit.queue.queues.emails.max-deliveries=3", "redis-kit.queue.queues.reports.max-deliveries=3",
					"redis-kit.queue.queues.ticks.max-deliveries=3", "redis-kit.queue.recurring.tick.queue=ticks",
					"redis-kit.queue.recurring.tick.fixed-rate=1s", "spring.application.name=" + HOSTILE_APPLICATION,
					"redis-kit.queue.queues.tenants.visibility-timeout=1h",
					"redis-kit.queue.queues.tenants.groups.enabled=true", "redis-kit.queue.queues.tenants.groups.max-in-flight=2",
					"redis-kit.queue.queues.tenants.groups.rate-limit=10",
					"redis-kit.queue.queues.tenants.groups.rate-limit-period=1m",
					"redis-kit.rate-limit.limiters.login.algorithm=sliding-log",
					"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1m",
					"redis-kit.bloom.filters.usernames.expected-insertions=1000",
					"redis-kit.bloom.filters.usernames.false-positive-rate=0.01",
					"redis-kit.bloom.filters.growing.expected-insertions=10",
					"redis-kit.bloom.filters.growing.growth.enabled=true",
					"redis-kit.bloom.filters.growing.growth.max-layers=4",
					"redis-kit.counter.counters.visitors.bucket=daily", "redis-kit.counter.counters.visitors.zone=UTC",
					"redis-kit.counter.calendars.check-in.zone=UTC", "redis-kit.counter.activities.logins.zone=UTC",
					"redis-kit.geo.indexes.bikes.max-limit=100", "redis-kit.cache.caches.products.ttl=10m",
					"redis-kit.leaderboard.leaderboards.scores.view-cache-ttl=1s",
					"redis-kit.recent-items.lists.viewed.capacity=5", "redis-kit.id.generators.order-ids.block-size=100",
					"management.metrics.distribution.percentiles.rediskit.queue.lateness=0.5,0.95,0.99")
			.run(arguments);
	}

	// What the pages show: a hostile lock name held, dead letters with hostile payload and reason, limiter
	// decisions, a filled Bloom filter, counted visitors and a big key with a hostile name.
	private void seed(ConfigurableApplicationContext context) throws Exception {
		this.hostileLease = context.getBean(LockRegistry.class).getLock(HOSTILE).acquire();
		this.permits = context.getBean(SemaphoreRegistry.class).getSemaphore("pool", HOSTILE, 3)
			.acquire(2, java.time.Duration.ofSeconds(10));
		RedisCountDownLatch latch = context.getBean(LatchRegistry.class).getCountDownLatch(HOSTILE);
		assertThat(latch.trySetCount(3)).isTrue();
		latch.countDown();
		context.getBean(LatchRegistry.class).getCountDownLatch("never-set");
		context.getBean(BloomFilterRegistry.class).get("growing")
			.addAll(java.util.stream.IntStream.range(0, 25).mapToObj(Integer::toString).toList());
		context.getBean(Digest.class).run();
		this.orders = context.getBean(QueueRegistry.class).get("orders", Object.class);
		this.orders.purge();
		this.orders.enqueue(QueueEntry.<Object>of(Map.of("note", HOSTILE, "n", 1)).withPriority(QueuePriority.HIGH));
		this.orders.enqueue(Map.of("note", "second", "n", 2));
		for (QueueMessage<Object> message : this.orders.poll(2, java.time.Duration.ZERO)) {
			message.deadLetter("handler failed: " + HOSTILE);
		}
		assertThat(this.orders.stats().dead()).isEqualTo(2);
		this.emails = context.getBean(QueueRegistry.class).get("emails", Object.class);
		this.emails.purge();
		this.emails.enqueue(Map.of("to", "first"));
		this.emails.enqueue(Map.of("to", "second"));
		this.emails.enqueue(Map.of("to", "third"));
		for (QueueMessage<Object> message : this.emails.poll(3, java.time.Duration.ZERO)) {
			message.deadLetter("bounced");
		}
		RedisQueue<Object> tenants = context.getBean(QueueRegistry.class).get("tenants", Object.class);
		tenants.purge();
		tenants.enqueueAll(List.of(QueueEntry.<Object>of("a").withGroup(HOSTILE), QueueEntry.<Object>of("b").withGroup(HOSTILE),
				QueueEntry.<Object>of("c").withGroup(HOSTILE), QueueEntry.<Object>of("d").withGroup("acme")));
		// One of the hostile group's messages in flight, so that its row shows 1 of its limit of 2.
		assertThat(tenants.poll(1, java.time.Duration.ZERO)).hasSize(1);
		tenants.enqueueBatch(QueueBatch.of(List.of(QueueEntry.<Object>of("m1").withDelay(java.time.Duration.ofHours(1)),
				QueueEntry.<Object>of("m2").withDelay(java.time.Duration.ofHours(1)))).withId(HOSTILE));
		for (int i = 0; i < 7; i++) {
			context.getBean(RateLimiterRegistry.class).get("login").tryAcquire("ada");
		}
		context.getBean(BloomFilterRegistry.class).get("usernames").add("ada");
		context.getBean(BloomFilterRegistry.class).get("usernames").add("bob");
		context.getBean(UniqueCounterRegistry.class).get("visitors").addAll(List.of("ada", "bob", "eve"));
		context.getBean(BitmapRegistry.class).calendar("check-in").checkIn("ada", LocalDate.now(ZoneOffset.UTC));
		context.getBean(BitmapRegistry.class).activity("logins").markActive(7, LocalDate.now(ZoneOffset.UTC));
		context.getBean(BitmapRegistry.class).activity("logins").markActive(8, LocalDate.now(ZoneOffset.UTC));
		context.getBean(IdGeneratorRegistry.class).get("order-ids").next();
		context.getBean(RecurringJobs.class).add(REPORT, RecurringJobSpec.fixedRate("reports", java.time.Duration.ofHours(1)));
		context.getBean(GeoIndexRegistry.class).get("bikes").put("bike-1", GeoPoint.ofLatLon(48.85, 2.35));
		Leaderboard scores = context.getBean(LeaderboardRegistry.class).get("scores");
		scores.set("ada", 30);
		scores.set(HOSTILE, 20);
		scores.set("bob", 10);
		RecentItems viewed = context.getBean(RecentItemsRegistry.class).get("viewed");
		viewed.view("ada", "p-1");
		viewed.view("ada", HOSTILE);
		RedisKitCache products = context.getBean(RedisKitCacheManager.class).getCache("products");
		products.put(HOSTILE, "a hostile key's value");
		products.put("kept", "a value");
		assertThat(products.get(HOSTILE)).isNotNull();
		assertThat(products.get("absent")).isNull();
		StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
		redis.opsForValue().set(HOSTILE, "x".repeat(50_000));
		redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
			connection.serverCommands().setConfig("maxmemory-policy", "allkeys-lru");
			return null;
		});
	}

	@Test
	@Order(1)
	void overviewShowsEachPrimitiveAndRedis() {
		this.browser.signIn(this.base, "ada");
		this.browser.open(this.console, "overview");
		assertThat(this.browser.text("#redis-status")).isEqualTo("UP");
		assertThat(this.browser.text("[data-area=queues] .big")).isEqualTo("5");
		assertThat(this.browser.text("[data-area=limiters] .big")).isEqualTo("1");
		assertThat(this.browser.text("[data-area=bloom] .big")).isEqualTo("2");
		// The sampler has seen the limiter's decisions: its chart has a line by the second sample.
		this.browser.await("a sparkline of the limiter decisions", () -> Boolean.TRUE.equals(this.browser
			.script("return !!document.querySelector('[data-area=limiters] polyline');")));
		this.browser.screenshot("overview");
	}

	@Test
	@Order(2)
	void locksShowsTheHeldLockWithItsNameAsText() {
		this.browser.open(this.console, "locks");
		this.browser.await("the held lock listed",
				() -> HOSTILE.equals(this.browser.text("#page-locks tbody tr td.name")));
		// Taken by its name alone, the lock is its own group.
		assertThat(this.browser.text("#page-locks tbody tr td.group")).isEqualTo(HOSTILE);
		assertThat(this.browser.text("#page-locks tbody tr")).contains("lease").contains("yes");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		this.browser.screenshot("locks");
	}

	@Test
	@Order(2)
	void locksShowSemaphoresWithTheirPermitsAndLatchesWithTheirCountsNamesAsText() {
		this.browser.open(this.console, "locks");
		this.browser.await("the semaphore listed",
				() -> ("pool:" + HOSTILE).equals(this.browser.text("#semaphores tbody tr td.name")));
		assertThat(this.browser.text("#semaphores tbody tr .held")).isEqualTo("2");
		assertThat(this.browser.text("#semaphores tbody tr .total")).isEqualTo("3");
		assertThat(this.browser.text("#semaphores tbody tr")).contains("2 of 3");
		assertThat(this.browser.text("#latches tbody tr:first-child td.name")).isEqualTo(HOSTILE);
		assertThat(this.browser.text("#latches tbody tr:first-child .count")).isEqualTo("2");
		assertThat(this.browser.text("#latches tr[data-name=never-set] .count")).isEqualTo("not set");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
	}

	@Test
	@Order(2)
	void locksShowAScheduledJobWithItsLastRunAsText() {
		this.browser.open(this.console, "locks");
		this.browser.await("the scheduled job listed",
				() -> JOB.equals(this.browser.text("#scheduled-jobs tbody tr td.text")));
		assertThat(this.browser.text("#scheduled-jobs tbody tr")).contains("0 s / 1 min").contains("ran").endsWith("free");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
	}

	@Test
	@Order(3)
	void limitersShowPolicyAndDecisionRates() {
		this.browser.open(this.console, "limiters");
		this.browser.await("the limiter's policy",
				() -> String.valueOf(this.browser.text("#page-limiters tr[data-name=login]")).contains("5 per 1 min"));
		assertThat(this.browser.text("#page-limiters tr[data-name=login]")).contains("sliding-log").contains("fail-open");
		this.browser.await("allowed and rejected lines", () -> {
			String row = String.valueOf(this.browser.text("#page-limiters tr[data-name=login] .legend"));
			return row.contains("allowed") && row.contains("rejected");
		});
	}

	@Test
	@Order(4)
	void oneKeyIsLookedUpWithoutTakingAPermitAndShownAsText() {
		// Taken here, not when seeding: the login limiter's window is one minute.
		RateLimiter login = this.mvc.getBean(RateLimiterRegistry.class).get("login");
		assertThat(login.tryAcquire(HOSTILE, 2).allowed()).isTrue();
		assertThat(login.tryAcquire("eve", 5).allowed()).isTrue();
		this.browser.open(this.console, "limiters");
		lookUp(HOSTILE);
		this.browser.await("the hostile key's state", () -> "3 of 5".equals(this.browser.text("#lookup-remaining")));
		assertThat(this.browser.text("#lookup-result-key")).isEqualTo(HOSTILE);
		assertThat(this.browser.text("#lookup-result")).contains("(sliding-log)").contains("a permit is free now")
			.contains("full again in");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		// The page re-renders itself; the result stays, and looking did not take a permit.
		this.browser.await("a re-render", () -> Boolean.TRUE.equals(this.browser.script(
				"var before = document.getElementById('page-limiters'); window.__before = window.__before || before;"
						+ " return window.__before !== before;")));
		assertThat(this.browser.text("#lookup-remaining")).isEqualTo("3 of 5");
		this.browser.screenshot("limiters");
		lookUp("eve");
		this.browser.await("an exhausted key", () -> "0 of 5".equals(this.browser.text("#lookup-remaining")));
		assertThat(this.browser.text("#lookup-result")).contains("the next permit in");
		assertThat(login.peek(HOSTILE).remaining()).isEqualTo(3);
		Map<String, Object> unknown = this.browser.asyncScript("var done = arguments[arguments.length - 1];"
				+ "fetch('api/limiter?name=' + encodeURIComponent(arguments[0]) + '&key=k').then(function (r) {"
				+ " return r.json().then(function (b) { done({status: r.status, error: b.error}); }); });", HOSTILE);
		assertThat(unknown).containsEntry("status", 400L).containsEntry("error", "No rate limiter is named so");
	}

	private void lookUp(String key) {
		this.browser.await("the lookup form", () -> !this.browser.driver().findElements(By.id("lookup-key")).isEmpty());
		this.browser.script("var input = document.getElementById('lookup-key'); input.focus(); input.value = '';");
		this.browser.driver().findElement(By.id("lookup-key")).sendKeys(key);
		this.browser.click(By.id("lookup-run"));
	}

	@Test
	@Order(5)
	void aDeadLetterIsRedrivenAndLeavesTheList() {
		this.browser.open(this.console, "queues");
		this.browser.await("the queue's counts", () -> "2".equals(this.browser.text("tr[data-name=orders] [data-dead]")));
		this.browser.click(By.linkText("orders"));
		this.browser.await("two dead letters listed", () -> Long.valueOf(2).equals(
				this.browser.script("return document.querySelectorAll('#queue-detail tbody tr').length;")));
		String oldest = this.browser.script("return document.querySelector('#queue-detail tbody tr').getAttribute('data-id');");
		assertThat(this.browser.text("#queue-detail tbody tr .reason")).isEqualTo("handler failed: " + HOSTILE);
		assertThat(this.browser.text("#queue-detail tbody tr .payload")).contains(HOSTILE);
		assertThat(this.browser.<List<Object>>script("return Array.from(document.querySelectorAll("
				+ "'#queue-detail tbody tr .priority')).map(function (c) { return c.textContent; });"))
			.as("each dead letter's priority, which a redrive gives it back").containsExactlyInAnyOrder((Object) "normal", "high");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		this.browser.script("document.getElementById('queue-detail').scrollIntoView();");
		this.browser.screenshot("queues");

		this.browser.click(By.id("redrive"));
		this.browser.await("the redriven letter gone from the list", () -> Long.valueOf(1).equals(this.browser.script(
				"return document.querySelectorAll('#queue-detail tbody tr').length;"))
				&& this.browser.script("return document.querySelector('#queue-detail tr[data-id=\"' + arguments[0] + '\"]');",
						oldest) == null);
		assertThat(this.browser.text("#notice")).isEqualTo("Redrove 1 dead letter(s) of orders.");
		assertThat(this.orders.stats().dead()).isEqualTo(1);
		assertThat(this.orders.stats().ready()).isEqualTo(1);
		assertThat(this.mvc.getBean(MeterRegistry.class).get(ConsoleActions.METER).tag("action", "redrive")
			.tag("result", "done").counter().count()).isEqualTo(1);
	}

	@Test
	@Order(5)
	void aQueuesBatchesAndGroupsShowInTablesNamesAsText() {
		this.browser.open(this.console, "queues");
		this.browser.click(By.linkText("tenants"));
		this.browser.await("the batch listed", () -> HOSTILE.equals(this.browser.text("#batches tbody tr td.id")));
		assertThat(this.browser.text("#batches tbody tr")).contains("0 of 2").contains("waiting");
		assertThat(this.browser.text("#batches tbody tr .total")).isEqualTo("2");
		assertThat(this.browser.text("#batches tbody tr .died")).isEqualTo("0");
		// The group with the most messages waiting first: the hostile one (two ready, one in flight), then acme.
		List<String> groups = this.browser.script("return Array.from(document.querySelectorAll('#groups tbody tr td.name'))"
				+ ".map(function (td) { return td.textContent; });");
		assertThat(groups).containsExactly(HOSTILE, "acme");
		String hostile = "#groups tbody tr:first-child";
		assertThat(this.browser.text(hostile + " .ready")).isEqualTo("2");
		assertThat(this.browser.text(hostile + " .in-flight")).endsWith(" 1 of 2");
		assertThat(this.browser.text(hostile + " .rate")).isEqualTo("10 per 1 min");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		this.browser.script("document.getElementById('queue-parts').scrollIntoView();");
		this.browser.screenshot("queue-batches");
	}

	@Test
	@Order(6)
	void oneChosenDeadLetterIsRedrivenAndAnotherDeleted() {
		List<String> ids = this.emails.deadLetters(3).stream().map(io.rediskit.queue.DeadLetter::id).toList();
		this.browser.open(this.console, "queues");
		this.browser.click(By.linkText("emails"));
		this.browser.await("three dead letters listed", () -> Long.valueOf(3).equals(
				this.browser.script("return document.querySelectorAll('#queue-detail tbody tr').length;")));
		// The middle one, not the oldest: the button acts on its own row's message.
		this.browser.click(By.cssSelector("#queue-detail tr[data-id='" + ids.get(1) + "'] .redrive-one"));
		this.browser.await("the redriven letter gone from the list", () -> rowIds().equals(List.of(ids.get(0), ids.get(2))));
		assertThat(this.browser.text("#notice")).isEqualTo("Redrove dead letter " + ids.get(1) + " of emails.");
		this.browser.click(By.cssSelector("#queue-detail tr[data-id='" + ids.get(2) + "'] .delete-one"));
		this.browser.click(By.cssSelector("#queue-detail tr[data-id='" + ids.get(2) + "'] .delete-one-confirm"));
		this.browser.await("the deleted letter gone from the list", () -> rowIds().equals(List.of(ids.get(0))));
		assertThat(this.emails.stats().dead()).isEqualTo(1);
		assertThat(this.emails.stats().ready()).isEqualTo(1);
		assertThat(this.emails.stats().total()).isEqualTo(2);
		MeterRegistry meters = this.mvc.getBean(MeterRegistry.class);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "redrive-dead-letter").tag("result", "done").counter()
			.count()).isEqualTo(1);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "delete-dead-letter").tag("result", "done").counter()
			.count()).isEqualTo(1);
	}

	private List<String> rowIds() {
		return this.browser.script("return Array.from(document.querySelectorAll('#queue-detail tbody tr'))"
				+ ".map(function (r) { return r.getAttribute('data-id'); });");
	}

	@Test
	@Order(7)
	void aPausedQueueHandsOutNothingUntilResumed() throws InterruptedException {
		this.browser.open(this.console, "queues");
		this.browser.await("the queue running", () -> "running".equals(this.browser.text("tr[data-name=orders] [data-paused]")));
		this.browser.click(By.linkText("orders"));
		// The detail of the queue opened before may still be on the page with its own pause button: wait for orders'.
		this.browser.await("the pause button of orders", () -> !this.browser.driver()
			.findElements(By.cssSelector("#queue-detail[data-name=orders] #pause")).isEmpty());
		this.browser.click(By.id("pause"));
		this.browser.await("the queue shown paused",
				() -> "paused".equals(this.browser.text("tr[data-name=orders] [data-paused]"))
						&& !this.browser.driver().findElements(By.id("resume")).isEmpty());
		assertThat(this.orders.isPaused()).isTrue();
		// A consumer on any instance claims nothing while the queue is paused: the claim script checks it.
		assertThat(this.orders.stats().ready()).isEqualTo(1);
		assertThat(this.orders.poll(1, java.time.Duration.ZERO)).isEmpty();

		this.browser.click(By.id("resume"));
		this.browser.await("the queue shown running",
				() -> "running".equals(this.browser.text("tr[data-name=orders] [data-paused]")));
		assertThat(this.orders.isPaused()).isFalse();
		List<QueueMessage<Object>> claimed = this.orders.poll(1, java.time.Duration.ZERO);
		assertThat(claimed).hasSize(1);
		claimed.get(0).ack();
		assertThat(this.mvc.getBean(MeterRegistry.class).get(ConsoleActions.METER).tag("action", "pause")
			.tag("result", "done").counter().count()).isEqualTo(1);
	}

	@Test
	@Order(8)
	void anActionWithoutTheCsrfTokenIsRefused() {
		Long status = this.browser.asyncScript("var done = arguments[arguments.length - 1];"
				+ "fetch('api/queue/redrive?name=orders&max=1', {method: 'POST', credentials: 'same-origin',"
				+ " headers: {'X-Redis-Kit-Console': 'action'}}).then(function (r) { done(r.status); });");
		assertThat(status).isEqualTo(403);
		assertThat(this.orders.stats().dead()).isEqualTo(1);
	}

	@Test
	@Order(9)
	void structuresShowSizingFillAndCounts() {
		this.browser.open(this.console, "structures");
		assertThat(this.browser.text("tr[data-name=usernames]")).contains("2 / 1,000").contains("1 %");
		assertThat(this.browser.text("#page-structures tr[data-name=visitors]")).contains("daily").endsWith("3");
		assertThat(this.browser.text("#page-structures tr[data-name=check-in]")).contains("UTC");
		assertThat(this.browser.text("#page-structures tr[data-name=bikes]")).contains("100");
		assertThat(this.browser.text("#page-structures tr[data-name=bikes] [data-members]")).isEqualTo("1");
		assertThat(this.browser.text("#page-structures tr[data-name=logins] [data-active-today]")).isEqualTo("2");
		assertThat(this.browser.text("#page-structures tr[data-name=growing] [data-layers]")).isEqualTo("2");
		assertThat(this.browser.text("#ids tr[data-name=order-ids] [data-reserved]")).isEqualTo("100");
		assertThat(this.browser.text("#bloom-layers tr[data-filter=growing][data-layer='1']")).contains("/ 10");
		assertThat(this.browser.text("#bloom-layers tr[data-filter=growing][data-layer='2']")).contains("/ 20");
		this.browser.screenshot("structures");
	}

	@Test
	@Order(10)
	void keysWarnAboutSettingsAndListBigKeysAsText() {
		this.browser.open(this.console, "keys");
		assertThat(this.browser.text("#page-keys")).contains("maxmemory-policy is allkeys-lru")
			.contains("lazyfree-lazy-user-del is no");
		this.browser.click(By.id("run-report"));
		this.browser.await("the big-key report", () -> HOSTILE.equals(this.browser.text("#page-keys tr[data-key] td.text")));
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		this.browser.screenshot("keys");
	}

	@Test
	@Order(9)
	void leaderboardsShowTheTopAndOneMembersRankAndRecentItemsOneUsersListAsText() {
		this.browser.open(this.console, "leaderboards");
		List<String> top = this.browser.script("return Array.from(document.querySelectorAll("
				+ "'[data-leaderboard=scores] td.member')).map(function (td) { return td.textContent; });");
		assertThat(top).containsExactly("ada", HOSTILE, "bob");
		assertThat(this.browser.text("[data-leaderboard=scores] h3")).isEqualTo("scores · 3 members");
		List<String> trending = this.browser.script("return Array.from(document.querySelectorAll("
				+ "'[data-recent=viewed] td.item')).map(function (td) { return td.textContent; });");
		assertThat(trending).containsExactlyInAnyOrder("p-1", HOSTILE);
		this.browser.script("var input = document.getElementById('rank-value'); input.focus(); input.value = '';");
		this.browser.driver().findElement(By.id("rank-value")).sendKeys(HOSTILE);
		this.browser.click(By.id("rank-run"));
		this.browser.await("the member's rank", () -> "2".equals(this.browser.text("#rank-rank")));
		assertThat(this.browser.text("#rank-member")).isEqualTo(HOSTILE);
		this.browser.script("var input = document.getElementById('recent-value'); input.focus(); input.value = '';");
		this.browser.driver().findElement(By.id("recent-value")).sendKeys("ada");
		this.browser.click(By.id("recent-run"));
		this.browser.await("the user's recent items", () -> Long.valueOf(2)
			.equals(this.browser.script("return document.querySelectorAll('#recent-items li').length;")));
		List<String> items = this.browser.script("return Array.from(document.querySelectorAll('#recent-items li'))"
				+ ".map(function (li) { return li.textContent; });");
		assertThat(items).containsExactly(HOSTILE, "p-1");
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
		this.browser.screenshot("leaderboards");
	}

	@Test
	@Order(10)
	void cachesShowHitRatiosAndEvictAKeyAndClearACache() {
		RedisKitCache products = this.mvc.getBean(RedisKitCacheManager.class).getCache("products");
		this.browser.open(this.console, "caches");
		String row = "#page-caches tr[data-name=products]";
		assertThat(this.browser.text(row)).contains("10 min").contains("off");
		// The seed read one hit from Redis and one miss: each is half of this instance's reads since it started.
		this.browser.await("the reads sampled", () -> "50 %".equals(this.browser.text(row + " [data-miss]")));
		assertThat(this.browser.text(row + " [data-hit-redis]")).isEqualTo("50 %");
		assertThat(this.browser.text(row + " [data-hit-near]")).isEqualTo("0 %");
		this.browser.screenshot("caches");

		this.browser.script("var input = document.getElementById('evict-key'); input.focus(); input.value = '';");
		this.browser.driver().findElement(By.id("evict-key")).sendKeys(HOSTILE);
		this.browser.click(By.id("evict-run"));
		this.browser.await("the eviction told", () -> "Evicted the entry from cache products, near caches included."
			.equals(this.browser.text("#notice")));
		assertThat(products.get(HOSTILE)).isNull();
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();

		this.browser.click(By.cssSelector(row + " .clear"));
		this.browser.click(By.cssSelector(row + " .clear-confirm"));
		this.browser.await("the clearing told",
				() -> String.valueOf(this.browser.text("#notice")).startsWith("Cleared every entry of cache products"));
		assertThat(products.get("kept")).isNull();
		MeterRegistry meters = this.mvc.getBean(MeterRegistry.class);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "evict-cache-key").tag("result", "done").counter()
			.count()).isEqualTo(1);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "clear-cache").tag("result", "done").counter()
			.count()).isEqualTo(1);
		products.put("kept", "a value");
	}

	@Test
	@Order(5)
	void aRecurringJobShowsTheInstanceThatTookItsLastSlotByItsNameAsText() {
		String row = "#recurring tr[data-name=tick]";
		this.browser.open(this.console, "queues");
		// Slots come every second: the page shows the last one this instance saw, and who took it.
		this.browser.await("the last slot's taker", () -> String.valueOf(this.browser.text(row + " .taken-by"))
			.startsWith(HOSTILE_APPLICATION + "@"));
		assertThat(this.browser.text(row + " .taken-by")).endsWith(":" + ProcessHandle.current().pid());
		assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
	}

	@Test
	@Order(10)
	void aRecurringJobIsPausedTriggeredAndResumedOnEveryInstance() {
		RecurringJobs jobs = this.mvc.getBean(RecurringJobs.class);
		RedisQueue<Object> reports = this.mvc.getBean(QueueRegistry.class).get("reports", Object.class);
		String row = "#recurring tr[data-name=" + REPORT + "]";
		this.browser.open(this.console, "queues");
		this.browser.await("the job running", () -> "running".equals(this.browser.text(row + " [data-paused]")));
		assertThat(this.browser.text(row)).contains("every 1 h").contains("reports");
		this.browser.click(By.cssSelector(row + " .pause-recurring"));
		this.browser.await("the job shown paused", () -> "paused".equals(this.browser.text(row + " [data-paused]")));
		assertThat(jobs.isPaused(REPORT)).isTrue();
		this.browser.click(By.cssSelector(row + " .trigger-recurring"));
		this.browser.await("the trigger told",
				() -> String.valueOf(this.browser.text("#notice")).startsWith("Triggered recurring job " + REPORT));
		assertThat(reports.stats().delayed() + reports.stats().ready()).as("one run, paused or not").isEqualTo(1);
		this.browser.click(By.cssSelector(row + " .resume-recurring"));
		this.browser.await("the job shown running", () -> "running".equals(this.browser.text(row + " [data-paused]")));
		assertThat(jobs.isPaused(REPORT)).isFalse();
		MeterRegistry meters = this.mvc.getBean(MeterRegistry.class);
		for (String action : List.of("pause-recurring", "trigger-recurring", "resume-recurring")) {
			assertThat(meters.get(ConsoleActions.METER).tag("action", action).tag("result", "done").counter().count())
				.as(action).isEqualTo(1);
		}
	}

	@Test
	@Order(11)
	void cacheActionsWithoutTheActionRoleAreRefused() {
		RedisKitCache products = this.mvc.getBean(RedisKitCacheManager.class).getCache("products");
		this.browser.signIn(this.base, "vic");
		this.browser.open(this.console, "caches");
		assertThat(this.browser.driver().findElements(By.cssSelector("#page-caches .clear"))).isEmpty();
		assertThat(this.browser.driver().findElements(By.id("evict-run"))).isEmpty();
		for (String action : List.of("cache/clear?name=products", "cache/evict?name=products&key=kept",
				"recurring/pause?name=" + REPORT, "recurring/trigger?name=" + REPORT)) {
			Long status = this.browser.asyncScript("var done = arguments[arguments.length - 1], path = arguments[0];"
					+ "fetch('api/session').then(function (r) { return r.json(); }).then(function (s) {"
					+ " var headers = {'X-Redis-Kit-Console': 'action'}; headers[s.csrf.header] = s.csrf.token;"
					+ " return fetch('api/' + path, {method: 'POST', headers: headers}); })"
					+ ".then(function (r) { done(r.status); });", action);
			assertThat(status).isEqualTo(403);
		}
		assertThat(products.get("kept")).isNotNull();
		assertThat(this.mvc.getBean(RecurringJobs.class).isPaused(REPORT)).isFalse();
		assertThat(this.browser.driver().findElements(By.cssSelector("#page-caches .pause-recurring"))).isEmpty();
		MeterRegistry meters = this.mvc.getBean(MeterRegistry.class);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "pause-recurring").tag("result", "refused").counter()
			.count()).isEqualTo(1);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "clear-cache").tag("result", "refused").counter()
			.count()).isEqualTo(1);
		assertThat(meters.get(ConsoleActions.METER).tag("action", "evict-cache-key").tag("result", "refused")
			.counter().count()).isEqualTo(1);
	}

	@Test
	@Order(11)
	void anActionWithoutTheActionRoleIsRefused() {
		this.browser.signIn(this.base, "vic");
		this.browser.open(this.console, "queues");
		this.browser.click(By.linkText("orders"));
		this.browser.await("the dead letter listed", () -> Long.valueOf(1).equals(
				this.browser.script("return document.querySelectorAll('#queue-detail tbody tr').length;")));
		assertThat(this.browser.driver().findElements(By.id("redrive"))).isEmpty();
		assertThat(this.browser.text("#who")).isEqualTo("vic · read-only");
		// The page offers no button; a request made by hand, with a valid CSRF token, is refused all the same.
		Long status = this.browser.asyncScript("var done = arguments[arguments.length - 1];"
				+ "fetch('api/session').then(function (r) { return r.json(); }).then(function (s) {"
				+ " var headers = {'X-Redis-Kit-Console': 'action'}; headers[s.csrf.header] = s.csrf.token;"
				+ " return fetch('api/queue/purge?name=orders', {method: 'POST', headers: headers}); })"
				+ ".then(function (r) { done(r.status); });");
		assertThat(status).isEqualTo(403);
		assertThat(this.orders.stats().dead()).isEqualTo(1);
		assertThat(this.mvc.getBean(MeterRegistry.class).get(ConsoleActions.METER).tag("action", "purge")
			.tag("result", "refused").counter().count()).isEqualTo(1);
	}

	@Test
	@Order(12)
	void webFluxServesTheSameConsole() {
		// With redis-kit.console.show-payloads at its default: the application's values hidden on every page.
		try (ConfigurableApplicationContext flux = run(FluxApplication.class, WebApplicationType.REACTIVE,
				"--redis-kit.console.show-payloads=false")) {
			String base = "http://localhost:" + flux.getEnvironment().getProperty("local.server.port");
			this.browser.signIn(base, "ada");
			this.browser.open(base + "/redis-kit/", "overview");
			assertThat(this.browser.text("#redis-status")).isEqualTo("UP");
			this.browser.open(base + "/redis-kit/", "queues");
			this.browser.await("the queue's counts",
					() -> "1".equals(this.browser.text("tr[data-name=orders] [data-dead]")));
			this.browser.click(By.linkText("orders"));
			this.browser.await("the dead letter's reason as text",
					() -> ("handler failed: " + HOSTILE).equals(this.browser.text("#queue-detail tbody tr .reason")));
			assertThat(this.browser.text("#queue-detail tbody tr .payload")).endsWith("(hidden)")
				.doesNotContain(HOSTILE);
			assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
			// The one-letter action and the key lookup through the WebFlux routes, CSRF token included.
			this.browser.click(By.cssSelector("#queue-detail tbody tr .redrive-one"));
			this.browser.await("the redriven letter gone", () -> rowIds().isEmpty()
					&& String.valueOf(this.browser.text("#notice")).startsWith("Redrove dead letter"));
			assertThat(this.orders.stats().dead()).isZero();
			Map<String, Object> state = this.browser.asyncScript("var done = arguments[arguments.length - 1];"
					+ "fetch('api/limiter?name=login&key=nobody').then(function (r) { return r.json(); }).then(done);");
			assertThat(state).containsEntry("remaining", 5L).containsEntry("limit", 5L);
			// The new pages' reads and a cache action through the WebFlux routes.
			this.browser.open(base + "/redis-kit/", "instances");
			this.browser.await("both instances listed", () -> Long.valueOf(2).equals(this.browser
				.script("return document.querySelectorAll('#instances tr[data-alive=true]').length;")));
			this.browser.open(base + "/redis-kit/", "queues");
			this.browser.click(By.linkText("tenants"));
			this.browser.await("the groups counted, not named",
					() -> "2".equals(this.browser.text("#groups tbody tr:first-child .ready")));
			List<String> groups = this.browser.script("return Array.from(document.querySelectorAll("
					+ "'#groups tbody tr td.name')).map(function (td) { return td.textContent; });");
			assertThat(groups).containsExactly("(hidden)", "(hidden)");
			this.browser.open(base + "/redis-kit/", "leaderboards");
			assertThat(this.browser.text("[data-leaderboard=scores] h3")).isEqualTo("scores · 3 members");
			List<String> members = this.browser.script("return Array.from(document.querySelectorAll("
					+ "'[data-leaderboard=scores] td.member')).map(function (td) { return td.textContent; });");
			assertThat(members).containsExactly("(hidden)", "(hidden)", "(hidden)");
			List<String> ranks = this.browser.script("return Array.from(document.querySelectorAll("
					+ "'[data-leaderboard=scores] td.num:first-child')).map(function (td) { return td.textContent; });");
			assertThat(ranks).containsExactly("1", "2", "3");
			List<String> trending = this.browser.script("return Array.from(document.querySelectorAll("
					+ "'[data-recent=viewed] td.item')).map(function (td) { return td.textContent; });");
			assertThat(trending).containsExactly("(hidden)", "(hidden)");
			this.browser.script("var input = document.getElementById('recent-value'); input.focus(); input.value = '';");
			this.browser.driver().findElement(By.id("recent-value")).sendKeys("ada");
			this.browser.click(By.id("recent-run"));
			this.browser.await("the user's items counted, not shown",
					() -> "2 items (hidden)".equals(this.browser.text("#recent-hidden")));
			assertThat((Long) this.browser.script("return document.querySelectorAll('#recent-items li').length;"))
				.isZero();
			assertThat(this.browser.text("#page-leaderboards")).doesNotContain(HOSTILE, "p-1");
			// Names given in code hidden (a hold's here, the other instance's semaphore and latches named in its
			// heartbeat); groups, permits, counts and who uses each shown.
			try (Lease order = flux.getBean(LockRegistry.class).getLock("orders", HOSTILE).acquire()) {
				this.browser.open(base + "/redis-kit/", "locks");
				this.browser.await("the hold listed by its group",
						() -> "orders".equals(this.browser.text("#page-locks tbody tr td.group")));
				assertThat(this.browser.text("#page-locks tbody tr td.name")).isEqualTo("(hidden)");
				this.browser.await("the other instance's semaphore listed",
						() -> "2".equals(this.browser.text("#semaphores tbody tr .held")));
				assertThat(this.browser.text("#semaphores tbody tr td.name")).isEqualTo("(hidden)");
				assertThat(this.browser.text("#semaphores tbody tr .total")).isEqualTo("3");
				assertThat(this.browser.text("#semaphores tbody tr .used-by")).startsWith(HOSTILE_APPLICATION + "@");
				List<String> latches = this.browser.script("return Array.from(document.querySelectorAll("
						+ "'#latches tbody tr td.name')).map(function (td) { return td.textContent; });");
				assertThat(latches).containsExactly("(hidden)", "(hidden)");
				assertThat(this.browser.text("#latches tbody tr .count")).isIn("2", "not set");
				assertThat(this.browser.text("#page-locks")).doesNotContain(HOSTILE, "never-set");
				assertThat((Boolean) this.browser.script(NO_MARKUP_RAN)).isTrue();
			}
			this.browser.open(base + "/redis-kit/", "caches");
			this.browser.click(By.cssSelector("#page-caches tr[data-name=products] .clear"));
			this.browser.click(By.cssSelector("#page-caches tr[data-name=products] .clear-confirm"));
			this.browser.await("the clearing told",
					() -> String.valueOf(this.browser.text("#notice")).startsWith("Cleared every entry of cache products"));
			assertThat(flux.getBean(RedisKitCacheManager.class).getCache("products").get("kept")).isNull();
		}
	}

	static UserDetails[] users() {
		return new UserDetails[] {
				User.withUsername("ada").password("{noop}secret").roles("REDIS_KIT_VIEWER", "REDIS_KIT_OPERATOR").build(),
				User.withUsername("vic").password("{noop}secret").roles("REDIS_KIT_VIEWER").build() };
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ MvcSecurity.class, Digest.class })
	static class MvcApplication {

	}

	// A scheduled job, run once by the seed: the Locks page lists it with that run.
	static class Digest {

		@ScheduledLock(name = JOB, lockAtMostFor = "1m")
		public void run() {
		}

	}

	// Spring Security as Spring Boot's security auto-configuration registers it (not on this module's class path):
	// form login, CSRF protection on (the default), the filter chain at order -100.
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class MvcSecurity {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.formLogin(Customizer.withDefaults())
				.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(ConsoleBrowserTests.users());
		}

		@Bean
		DelegatingFilterProxyRegistrationBean securityFilterChainRegistration() {
			DelegatingFilterProxyRegistrationBean registration = new DelegatingFilterProxyRegistrationBean(
					"springSecurityFilterChain");
			registration.setOrder(-100);
			return registration;
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(FluxSecurity.class)
	static class FluxApplication {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebFluxSecurity
	static class FluxSecurity {

		@Bean
		SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.anyExchange().authenticated())
				.formLogin(Customizer.withDefaults())
				.build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(ConsoleBrowserTests.users());
		}

	}

}
