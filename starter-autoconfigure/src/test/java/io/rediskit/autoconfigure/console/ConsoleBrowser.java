package io.rediskit.autoconfigure.console;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.util.FileSystemUtils;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Headless Chromium from Debian's {@code chromium} and {@code chromium-driver} packages, driven by Selenium, with
 * the driver's path given so that Selenium Manager downloads nothing. One browser per test class; a test that
 * needs it skips, with the reason, only where the packages are not installed ({@code .ci/run} installs them).
 */
final class ConsoleBrowser implements AutoCloseable {

	static final String CHROMIUM = "/usr/bin/chromium";

	static final String CHROMEDRIVER = "/usr/bin/chromedriver";

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final ChromeDriver driver;

	private final Path profile;

	private ConsoleBrowser(ChromeDriver driver, Path profile) {
		this.driver = driver;
		this.profile = profile;
	}

	/** Skips the calling test class unless Chromium and its driver are installed. */
	static void assumeInstalled() {
		assumeTrue(new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
				"The console's browser tests need Debian's chromium and chromium-driver (" + CHROMIUM + ", "
						+ CHROMEDRIVER + "); apt-get install chromium chromium-driver");
	}

	static ConsoleBrowser start() throws IOException {
		Path profile = Files.createTempDirectory("redis-kit-console-chromium");
		ChromeDriverService service = new ChromeDriverService.Builder()
			.usingDriverExecutable(new File(CHROMEDRIVER))
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM);
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
				"--user-data-dir=" + profile, "--window-size=1360,1000");
		return new ConsoleBrowser(new ChromeDriver(service, options), profile);
	}

	WebDriver driver() {
		return this.driver;
	}

	/** Opens a URL and signs in on Spring Security's generated login page, forgetting any earlier session. */
	void signIn(String base, String user) {
		this.driver.manage().deleteAllCookies();
		this.driver.get(base + "/login");
		this.driver.findElement(By.name("username")).sendKeys(user);
		this.driver.findElement(By.name("password")).sendKeys("secret");
		this.driver.findElement(By.cssSelector("button[type=submit]")).click();
		await("signed in as " + user, () -> !this.driver.getCurrentUrl().contains("/login"));
	}

	/** Opens a console page and waits until the page script has rendered it. */
	void open(String console, String page) {
		this.driver.get(console + "#" + page);
		await("page " + page + " rendered", () -> page.equals(script(
				"return document.body.getAttribute('data-rendered')")));
	}

	@SuppressWarnings("unchecked")
	<T> T script(String script, Object... arguments) {
		return (T) ((JavascriptExecutor) this.driver).executeScript(script, arguments);
	}

	@SuppressWarnings("unchecked")
	<T> T asyncScript(String script, Object... arguments) {
		return (T) ((JavascriptExecutor) this.driver).executeAsyncScript(script, arguments);
	}

	/** @return the text of the first element matching the selector, or {@code null} */
	String text(String selector) {
		return script("var e = document.querySelector(arguments[0]); return e ? e.textContent : null;", selector);
	}

	/** Waits, up to a generous deadline, for a condition the page reaches by itself (it polls every second). */
	void await(String what, BooleanSupplier condition) {
		new WebDriverWait(this.driver, WAIT).withMessage(what).until((driver) -> condition.getAsBoolean());
	}

	/**
	 * Clicks an element once it is there. The page re-renders itself every second, so an element found a moment
	 * before may be gone when clicked (a stale element, not clicked): it is found and clicked again.
	 */
	void click(By by) {
		await("a click on " + by, () -> {
			try {
				this.driver.findElement(by).click();
				return true;
			}
			catch (StaleElementReferenceException | NoSuchElementException ex) {
				return false;
			}
		});
	}

	/** Saves a screenshot for docs/console.md when run with {@code -Dredis-kit.docs.write=true}. */
	void screenshot(String name) {
		if (!Boolean.getBoolean("redis-kit.docs.write")) {
			return;
		}
		try {
			Path target = Path.of("..", "docs", "console", name + ".png");
			Files.createDirectories(target.getParent());
			Files.copy(this.driver.getScreenshotAs(OutputType.FILE).toPath(), target,
					StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() throws IOException {
		try {
			this.driver.quit();
		}
		finally {
			FileSystemUtils.deleteRecursively(this.profile);
		}
	}

}
